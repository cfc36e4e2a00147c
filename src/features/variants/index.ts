export { setFlagsEnvironmentVariants } from './variants.batch.service.js';
export { variantChanges } from './variants.changes.js';
export { variantRoutes } from './variants.routes.js';
export { prepareVariants } from './variants.service.js';
export { copyEnvironmentVariants } from './variants.store.js';
export { type StoredVariantOf, storedVariant } from './variants.stored.js';
export { fixVariantWeights, normaliseVariantWeights, variantWeightProblems } from './variants.weights.js';

export { variantRoutes } from './variants.routes.js';
export { prepareVariants } from './variants.service.js';
export { fixVariantWeights, normaliseVariantWeights, variantWeightProblems } from './weights.js';

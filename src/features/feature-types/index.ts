// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { FeatureTypeSchema } from './feature-types.schemas.js';
export { featureTypeRoutes } from './feature-types.routes.js';

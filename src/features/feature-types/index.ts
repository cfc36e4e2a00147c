export { featureTypeRoutes } from './feature-types.routes.js';
export { FeatureTypeSchema } from './feature-types.schemas.js';

// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { UiConfigSchema } from './ui-config.schemas.js';
export { instanceRoutes } from './ui-config.routes.js';

// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { ExportResultSchema, ImportBody, ImportValidationSchema } from './transfer.schemas.js';
export { transferRoutes } from './transfer.routes.js';

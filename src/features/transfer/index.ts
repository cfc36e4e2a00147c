export { transferRoutes } from './transfer.routes.js';
export { ExportResultSchema, ImportBody, ImportValidationSchema } from './transfer.schemas.js';

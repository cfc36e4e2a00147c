export { createMissingContextFields } from './context.batch.service.js';
export { contextRoutes } from './context.routes.js';
export { ContextFieldSchema } from './context.schemas.js';

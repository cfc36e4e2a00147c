export { tagRoutes } from './tags.routes.js';
export { TAG_TYPE_NAME_PATTERN, TagSchema } from './tags.schemas.js';

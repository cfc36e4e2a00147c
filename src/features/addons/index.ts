// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { AddonSchema } from './addons.schemas.js';
export { addonRoutes } from './addons.routes.js';
export { type DeliveryOptions, deliverPending, startDeliveryWorker } from './delivery.service.js';

export { addonRoutes } from './addons.routes.js';
export { AddonSchema } from './addons.schemas.js';
export { type DeliveryOptions, deliverPending, startDeliveryWorker } from './delivery.service.js';

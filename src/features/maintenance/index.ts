export { maintenanceRoutes } from './maintenance.routes.js';
export { MaintenanceSchema } from './maintenance.schemas.js';
export {
  documentMaintenance,
  isInMaintenance,
  maintenanceError,
  maintenanceGuard,
  refuseInMaintenance,
} from './maintenance.service.js';
export { maintenanceIsOn } from './maintenance.store.js';

// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { MaintenanceSchema } from './maintenance.schemas.js';
export { maintenanceRoutes } from './maintenance.routes.js';
export {
  documentMaintenance,
  isInMaintenance,
  maintenanceError,
  maintenanceGuard,
  refuseInMaintenance,
} from './maintenance.service.js';
export { maintenanceIsOn } from './maintenance.store.js';

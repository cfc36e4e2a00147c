export { setParentsOfFlags, type WantedParent } from './dependencies.batch.service.js';
export { dependencyChanges } from './dependencies.changes.js';
export { dependencyRoutes } from './dependencies.routes.js';
export { copyDependencies } from './dependencies.service.js';
export { listParents } from './dependencies.store.js';

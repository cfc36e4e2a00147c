export { SharedMap } from './shared-map.js';
export {
  Configuration,
  ConfigurationCache,
  type ConfigurationSource,
  type EnvironmentSnapshot,
} from './snapshot.cache.js';
export type { FlagMeta, IndexedConfiguration } from './snapshot.input.js';

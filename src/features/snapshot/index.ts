export { Configuration, ConfigurationCache, type EnvironmentSnapshot } from './snapshot.cache.js';
export type { FlagMeta } from './snapshot.input.js';

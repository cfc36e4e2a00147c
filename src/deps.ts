import type { Config } from './config.js';
import type { Database } from './platform/db/index.js';

/** Everything a slice may use, passed explicitly; there is no container. */
export interface Deps {
  database: Database;
  config: Config;
  /** The current time; injected so tests can control it. */
  now: () => Date;
}

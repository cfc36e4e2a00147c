import { type AppError, invalid } from '../../platform/http/errors.js';

/** The 400 of a change to an archived flag's configuration (strategies, variants), as Unleash. */
export const archivedFlag = (name: string): AppError =>
  invalid(`The flag "${name}" is archived; revive it before changing it.`);

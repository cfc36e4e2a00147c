import type { Static } from 'typebox';
import type { StrategySchema } from '../shapes/index.js';
import type { ChangeAction } from './changes.schemas.js';

type Strategy = Static<typeof StrategySchema>;

/** What applying each kind of change answers (a route sends it back). */
export interface ChangeResults extends Record<ChangeAction, unknown> {
  updateEnabled: undefined;
  addStrategy: Strategy;
  updateStrategy: Strategy;
  deleteStrategy: undefined;
  reorderStrategy: undefined;
}

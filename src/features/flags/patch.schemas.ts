import type { Static } from 'typebox';
import { jsonPatchBody } from '../shapes/index.js';

export const FlagPatchBody = jsonPatchBody(
  'the flag document {name, project, description, type, stale, impressionData, archived}',
  '/description',
);
export type FlagPatchInput = Static<typeof FlagPatchBody>;

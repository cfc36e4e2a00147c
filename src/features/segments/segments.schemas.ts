import { type Static, Type } from 'typebox';
import { AdminSegmentSchema } from '../shapes/index.js';

export const SegmentIdParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The segment id.', examples: [1] }),
});

export const SegmentListSchema = Type.Object(
  { segments: Type.Array(AdminSegmentSchema, { description: 'All segments, by id.' }) },
  { description: 'The segments.' },
);

export const SegmentStrategiesSchema = Type.Object(
  {
    strategies: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: 'The strategy id.' }),
          featureName: Type.String({ description: 'The flag of the strategy.' }),
          projectId: Type.String({ description: 'The project of the flag.' }),
          environment: Type.String({ description: 'The environment of the strategy.' }),
          strategyName: Type.String({ description: 'The strategy type.', examples: ['flexibleRollout'] }),
        },
        { description: 'A strategy using the segment.' },
      ),
      { description: 'The strategies using the segment.' },
    ),
  },
  { description: 'Strategies that use a segment.' },
);
export type SegmentStrategies = Static<typeof SegmentStrategiesSchema>;

export const SegmentNameBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The segment name to check.',
      examples: ['beta-users'],
    }),
  },
  { description: 'A segment name.' },
);

export const StrategyIdParams = Type.Object({
  strategyId: Type.String({ maxLength: 100, description: 'The strategy id.' }),
});

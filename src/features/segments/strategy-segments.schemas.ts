import { type Static, Type } from 'typebox';

export const StrategySegmentsBody = Type.Object(
  {
    projectId: Type.String({
      maxLength: 100,
      description: 'The project of the strategy.',
      examples: ['default'],
    }),
    strategyId: Type.String({ maxLength: 100, description: 'The strategy whose segments to set.' }),
    environmentId: Type.String({
      maxLength: 100,
      description: 'The environment of the strategy.',
      examples: ['development'],
    }),
    segmentIds: Type.Array(
      Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'A segment id.' }),
      {
        maxItems: 1000,
        description: 'The segments the strategy uses from now on; any others are removed from it.',
        examples: [[1, 2]],
      },
    ),
  },
  { description: 'The segments of one strategy.' },
);
export type StrategySegmentsInput = Static<typeof StrategySegmentsBody>;

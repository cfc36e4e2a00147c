import { type Static, Type } from 'typebox';

const STAGES = ['initial', 'pre-live', 'live', 'completed', 'archived'] as const;

export const LifecycleSchema = Type.Array(
  Type.Object({
    stage: Type.Enum([...STAGES], { description: 'The stage.', examples: ['live'] }),
    status: Type.Optional(
      Type.String({ description: 'For completed: kept or discarded.', examples: ['kept'] }),
    ),
    enteredStageAt: Type.String({ format: 'date-time', description: 'When the flag entered the stage.' }),
  }),
  { description: 'The stages the flag has entered, oldest first; the last one is the current stage.' },
);

export type Lifecycle = Static<typeof LifecycleSchema>;

export const CompleteBody = Type.Object(
  {
    status: Type.Enum(['kept', 'discarded'], {
      description: 'Whether the feature behind the flag was kept or discarded.',
      examples: ['kept'],
    }),
    statusValue: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'With kept: the variant that was kept.',
        examples: ['blue'],
      }),
    ),
  },
  { description: 'How the flag was completed.' },
);

export type CompleteInput = Static<typeof CompleteBody>;

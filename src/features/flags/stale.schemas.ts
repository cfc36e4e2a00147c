import { type Static, Type } from 'typebox';

export const StaleBody = Type.Object(
  {
    features: Type.Array(Type.String({ maxLength: 100, description: 'A flag name.' }), {
      maxItems: 1000,
      description: 'Flags to mark; names of flags that do not exist in the project are ignored.',
      examples: [['new-checkout']],
    }),
    stale: Type.Boolean({ description: 'true marks the flags stale, false not stale.', examples: [true] }),
  },
  { description: 'Flags to mark stale or not stale.' },
);

export type StaleInput = Static<typeof StaleBody>;

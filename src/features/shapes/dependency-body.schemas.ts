import { type Static, Type } from 'typebox';

/** A dependency as a request or a change names it (the dependencies slice and the changes leaf). */
export const CreateDependencyBody = Type.Object(
  {
    feature: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The parent flag: an active flag of the same project without parents of its own.',
      examples: ['checkout'],
    }),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'Whether the parent must be enabled (true, the default) or disabled (false).',
        default: true,
      }),
    ),
    variants: Type.Optional(
      Type.Array(Type.String({ maxLength: 100, description: 'A variant name of the parent.' }), {
        maxItems: 100,
        description: 'With enabled true: the parent variants that satisfy the dependency (any when absent).',
        examples: [['blue']],
      }),
    ),
  },
  { description: 'The parent the child flag depends on.' },
);
export type CreateDependencyInput = Static<typeof CreateDependencyBody>;

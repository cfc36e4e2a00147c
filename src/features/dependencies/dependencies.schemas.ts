import { type Static, Type } from 'typebox';
import { ProjectIdParam as ProjectId } from '../shapes/index.js';

const Child = Type.String({
  maxLength: 100,
  description: 'The child (dependent) flag.',
  examples: ['checkout-v2'],
});

export const ChildParams = Type.Object({ projectId: ProjectId, child: Child });
export const DependencyParams = Type.Object({
  projectId: ProjectId,
  child: Child,
  parent: Type.String({ maxLength: 100, description: 'The parent flag.', examples: ['checkout'] }),
});

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

export const ParentOptionsSchema = Type.Array(Type.String({ description: 'A flag name.' }), {
  description: 'Flags of the project that may become parents of the child, by name.',
});

export const DependenciesExistSchema = Type.Boolean({
  description: 'Whether any flag of the project depends on another flag.',
});

export const ParentParams = Type.Object({
  projectId: ProjectId,
  parent: Type.String({ maxLength: 100, description: 'The parent flag.', examples: ['checkout'] }),
});

export const ParentVariantsSchema = Type.Array(Type.String({ description: 'A variant name.' }), {
  description:
    "The parent's variant names, from its strategy variants and environment variants, sorted, each once.",
});

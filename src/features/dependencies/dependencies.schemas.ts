import { Type } from 'typebox';
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

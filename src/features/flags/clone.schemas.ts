import { type Static, Type } from 'typebox';
import { FLAG_NAME_PATTERN } from './flags.schemas.js';

export const CloneBody = Type.Object(
  {
    name: Type.String({
      pattern: FLAG_NAME_PATTERN,
      description: 'Name of the new flag.',
      examples: ['new-checkout-copy'],
    }),
    replaceGroupId: Type.Optional(
      Type.Boolean({
        description:
          'Whether the groupId parameter of copied strategies becomes the new flag name (default true).',
        default: true,
      }),
    ),
  },
  { description: 'The copy to make.' },
);

export type CloneInput = Static<typeof CloneBody>;

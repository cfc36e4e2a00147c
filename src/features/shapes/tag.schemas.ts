import { Type } from 'typebox';

export const TagSchema = Type.Object(
  {
    value: Type.String({ description: 'The tag value.', examples: ['team-a'] }),
    type: Type.String({ description: 'The tag type.', examples: ['simple'] }),
  },
  { description: 'A tag: a value under a tag type.' },
);

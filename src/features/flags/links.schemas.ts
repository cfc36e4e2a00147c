import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { FlagNameParam, ProjectIdParam } from '../shapes/index.js';

/** A link as the flag shows it (Unleash's featureSchema `links`). */
export const FlagLinkSchema = Type.Object(
  {
    id: Type.String({
      description: 'The id of the link (a ULID).',
      examples: ['01JTJNCJ5XVP2KPJFA03YRBZCA'],
    }),
    url: Type.String({
      description: 'The URL the flag is linked to.',
      examples: ['https://example.com/issue/1'],
    }),
    title: Nullable(Type.String({ description: 'What the link is, if given.', examples: ['Cleanup issue'] })),
    feature: Type.String({ description: 'The flag the link belongs to.', examples: ['new-checkout'] }),
  },
  { description: 'A link from the flag to something about it.' },
);
export type FlagLink = Static<typeof FlagLinkSchema>;

export const LinkBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 9_000,
      description: 'The URL (http or https; without a scheme, https is assumed).',
      examples: ['https://example.com/issue/1'],
    }),
    title: Type.Optional(
      Nullable(
        Type.String({ maxLength: 255, description: 'What the link is.', examples: ['Cleanup issue'] }),
      ),
    ),
  },
  { description: 'The link to any URL related to the flag.' },
);
export type LinkInput = Static<typeof LinkBody>;

export const LinkParams = Type.Object({
  projectId: ProjectIdParam,
  featureName: FlagNameParam,
  linkId: Type.String({
    maxLength: 100,
    description: 'The link id.',
    examples: ['01JTJNCJ5XVP2KPJFA03YRBZCA'],
  }),
});

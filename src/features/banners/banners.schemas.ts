import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

/** Banners as Unleash's web UI sends and reads them (its `useBannersApi`, `IInternalBanner`). */

const Variant = Type.Union(
  [Type.Literal('info'), Type.Literal('warning'), Type.Literal('error'), Type.Literal('success')],
  { description: 'How it looks.', default: 'info' },
);

export const BannerBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 4000, description: 'What it says (Markdown).' }),
    enabled: Type.Optional(Type.Boolean({ description: 'Shown now (default true).' })),
    variant: Type.Optional(Variant),
    sticky: Type.Optional(Type.Boolean({ description: 'Stays at the top while scrolling.' })),
    icon: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'An icon name, or `none`.' }))),
    link: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2000,
          // No other scheme: a banner's link must never run script (`javascript:`) in people's browsers.
          pattern: '^(https?://|/(?![/\\\\])|dialog$)',
          description:
            'Where its link goes: an http(s) URL, a path of this service, or `dialog` (opens its dialog).',
        }),
      ),
    ),
    linkText: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'The link’s text.' }))),
    dialogTitle: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'The dialog’s title.' }))),
    dialog: Type.Optional(
      Nullable(Type.String({ maxLength: 10_000, description: 'The dialog’s text (Markdown).' })),
    ),
  },
  { description: 'A banner to create, or the new content of one.' },
);
export type BannerInput = Static<typeof BannerBody>;

export const BannerSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The banner id.' }),
    enabled: Type.Boolean({ description: 'Shown now.' }),
    message: Type.String({ description: 'What it says.' }),
    variant: Variant,
    sticky: Type.Boolean({ description: 'Stays at the top while scrolling.' }),
    icon: Nullable(Type.String({ description: 'An icon name.' })),
    link: Nullable(Type.String({ description: 'Where its link goes.' })),
    linkText: Nullable(Type.String({ description: 'The link’s text.' })),
    dialogTitle: Nullable(Type.String({ description: 'The dialog’s title.' })),
    dialog: Nullable(Type.String({ description: 'The dialog’s text.' })),
    createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
  },
  { description: 'A banner every signed-in person sees at the top of the web UI while it is enabled.' },
);
export type Banner = Static<typeof BannerSchema>;

export const BannerListSchema = Type.Object(
  { banners: Type.Array(BannerSchema, { description: 'Every banner, by id.' }) },
  { description: 'The banners.' },
);

export const BannerParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The banner id.' }),
});

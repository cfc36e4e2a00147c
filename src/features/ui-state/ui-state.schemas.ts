import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

const FeedbackId = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The questionnaire.',
  examples: ['pnps'],
});
const Given = Nullable(
  Type.String({
    format: 'date-time',
    description: 'When the feedback was given.',
    examples: ['2026-11-23T08:29:21.282Z'],
  }),
);

export const FeedbackCreateBody = Type.Object(
  {
    feedbackId: FeedbackId,
    neverShow: Type.Optional(
      Type.Boolean({ description: 'Never show this questionnaire again (default false).' }),
    ),
  },
  { description: 'Feedback the signed-in user gave, or declined.' },
);

export const FeedbackUpdateBody = Type.Object(
  {
    userId: Type.Optional(Type.Integer({ description: 'Ignored: the signed-in user is the one changed.' })),
    neverShow: Type.Optional(Type.Boolean({ description: 'Never show this questionnaire again.' })),
    given: Type.Optional(Given),
  },
  { description: 'Changes to feedback; properties left out keep their values.' },
);

export const FeedbackSchema = Type.Object(
  {
    userId: Type.Integer({ description: 'The user.' }),
    feedbackId: FeedbackId,
    neverShow: Type.Boolean({ description: 'Never show this questionnaire again.' }),
    given: Given,
  },
  { description: "A user's feedback on one questionnaire." },
);

export const SplashSchema = Type.Object(
  {
    userId: Type.Integer({ description: 'The user.' }),
    splashId: Type.String({ description: 'The splash screen.' }),
    seen: Type.Boolean({ description: 'Always true: the user has seen it.' }),
  },
  { description: 'A splash screen a user has seen.' },
);

export const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'The questionnaire or splash screen id.' }),
});

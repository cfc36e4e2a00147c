import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { ProjectIdParam } from '../shapes/index.js';

const UserOwner = Type.Object(
  {
    ownerType: Type.Literal('user', { description: 'Always `user` here.' }),
    name: Type.String({ description: 'Name, else username, else email.' }),
    imageUrl: Nullable(Type.String({ description: 'Profile image.' })),
    email: Nullable(Type.String({ description: 'Email, if any.' })),
  },
  { description: 'A user holding the Owner role.' },
);

export const PersonalDashboardSchema = Type.Object(
  {
    admins: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'The user id.' }),
        name: Type.Optional(Type.String({ description: "The user's name." })),
        username: Type.Optional(Type.String({ description: "The user's username." })),
        imageUrl: Type.Optional(Type.String({ description: 'Profile image.' })),
        email: Type.Optional(Type.String({ description: "The user's email." })),
      }),
      { description: 'Users with the Admin root role.' },
    ),
    projectOwners: Type.Array(UserOwner, { description: 'Owners of the projects listed in `projects`.' }),
    projects: Type.Array(
      Type.Object({
        id: Type.String({ description: 'The project id.' }),
        name: Type.String({ description: 'The project name.' }),
        health: Type.Integer({ description: 'Deprecated: use technicalDebt.' }),
        technicalDebt: Type.Integer({ description: 'Technical debt (0-100).' }),
        memberCount: Type.Integer({ description: 'Users holding a role in the project.' }),
        featureCount: Type.Integer({ description: 'Non-archived flags of the project.' }),
      }),
      { description: 'Projects where the caller holds a project role (directly or by group), by name.' },
    ),
    flags: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The flag name.' }),
        project: Type.String({ description: 'Its project.' }),
        type: Type.String({ description: 'Its type.' }),
      }),
      { description: 'Active flags the caller created or favorited, by name.' },
    ),
  },
  { description: "The caller's personal dashboard." },
);

export const PersonalProjectSchema = Type.Object(
  {
    insights: Type.Object(
      {
        avgHealthCurrentWindow: Nullable(
          Type.Integer({
            description: 'Mean health over the last 4 weeks: null (no health history is kept).',
          }),
        ),
        avgHealthPastWindow: Nullable(
          Type.Integer({
            description: 'Mean health over the 4 weeks before: null (no health history is kept).',
          }),
        ),
        totalFlags: Type.Integer({ description: 'Non-archived flags.' }),
        activeFlags: Type.Integer({ description: 'Flags neither stale nor potentially stale.' }),
        staleFlags: Type.Integer({ description: 'Flags marked stale.' }),
        potentiallyStaleFlags: Type.Integer({
          description: 'Flags past their expected lifetime, not marked stale.',
        }),
        health: Type.Integer({ description: 'Deprecated: use technicalDebt.' }),
        technicalDebt: Type.Integer({ description: 'Technical debt (0-100).' }),
      },
      { description: 'Flag counts and health of the project.' },
    ),
    onboardingStatus: Type.Object(
      {
        status: Type.String({
          description: 'onboarding-started, first-flag-created or onboarded.',
          examples: ['onboarded'],
        }),
        feature: Type.Optional(Type.String({ description: 'The first flag (first-flag-created).' })),
      },
      { description: 'How far the project is with its first flag and SDK.' },
    ),
    latestEvents: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'The event id.' }),
        summary: Nullable(Type.String({ description: 'A summary of the event: null (not generated).' })),
        createdBy: Type.String({ description: 'Who caused the event.' }),
        createdByImageUrl: Type.String({ description: 'Their profile image.' }),
        createdAt: Type.String({ format: 'date-time', description: 'When it was recorded.' }),
      }),
      { description: 'The 10 newest events of the project, newest first.' },
    ),
    owners: Type.Array(
      Type.Object(
        {
          ownerType: Type.String({ description: 'user, group or system.' }),
          name: Type.Optional(Type.String({ description: 'User or group name.' })),
          imageUrl: Type.Optional(Nullable(Type.String({ description: 'Profile image (users).' }))),
          email: Type.Optional(Nullable(Type.String({ description: 'Email (users).' }))),
        },
        { description: 'An owner.' },
      ),
      { description: 'Users and groups with the Owner role; `[{ownerType: "system"}]` when none.' },
    ),
    roles: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'The role id.' }),
        name: Type.String({ description: 'The role name.' }),
        type: Type.String({ description: 'project or custom.' }),
      }),
      { description: "The caller's roles in the project (directly or by group)." },
    ),
  },
  { description: 'One project of the personal dashboard.' },
);

export const DashboardProjectParams = Type.Object({
  projectId: ProjectIdParam,
});

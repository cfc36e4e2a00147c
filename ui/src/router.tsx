import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Loading } from './components';
import { LoginPage } from './pages/Login';
import { ProjectFlagsPage, prefetchOnEnter, prefetchProjectFlags } from './pages/projectFlagsRoute';
import { Shell } from './Shell';

// Pages load on first visit (the initial bundle holds the shell and the login only).
const HomePage = lazy(() => import('./pages/Home'));
const ProjectsPage = lazy(() => import('./pages/Projects'));
const FlagPage = lazy(() => import('./pages/Flag'));
const SegmentsPage = lazy(() => import('./pages/Segments'));
const PlaygroundPage = lazy(() => import('./pages/Playground'));
const EventsPage = lazy(() => import('./pages/Events'));
const ContextFieldsPage = lazy(() => import('./pages/ContextFields'));
const ApiTokensPage = lazy(() => import('./pages/ApiTokens'));
const UsersPage = lazy(() => import('./pages/Users'));
const ApplicationsPage = lazy(() => import('./pages/Applications'));
const ApplicationOverviewPage = lazy(() => import('./pages/ApplicationOverview'));
const ImportExportPage = lazy(() => import('./pages/ImportExport'));
const GroupsPage = lazy(() => import('./pages/Groups'));
const RolesPage = lazy(() => import('./pages/Roles'));
const InviteLinkPage = lazy(() => import('./pages/InviteLink'));
const ProjectSettingsPage = lazy(() => import('./pages/ProjectSettings'));
const ProjectStatusPage = lazy(() => import('./pages/ProjectStatus'));
const ArchivePage = lazy(() => import('./pages/Archive'));
const SignupPage = lazy(() => import('./pages/Signup'));
const BannersAdminPage = lazy(() => import('./pages/BannersAdmin'));
const SignalsAdminPage = lazy(() => import('./pages/SignalsAdmin'));
const ReleaseTemplatesPage = lazy(() => import('./pages/ReleaseTemplates'));
const ChangeRequestsPage = lazy(() => import('./pages/ChangeRequests'));
const ChangeRequestPage = lazy(() => import('./pages/ChangeRequest'));

const page = (Page: React.ComponentType) => (
  <Suspense fallback={<Loading />}>
    <Page />
  </Suspense>
);

/** The service's base path, from the <base href> it puts into index.html. */
export const basename = new URL(document.baseURI).pathname.replace(/\/$/, '');

export const router = createBrowserRouter(
  [
    { path: '/login', element: <LoginPage /> },
    { path: '/new-user', element: page(SignupPage) },
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: page(HomePage) },
        { path: 'projects', element: page(ProjectsPage) },
        // The loader brings the flag list's chunk and starts its first read while the shell checks
        // the session (pages/projectFlagsRoute.tsx).
        {
          path: 'projects/:projectId',
          element: page(ProjectFlagsPage),
          hydrateFallbackElement: <Loading />,
          loader: prefetchProjectFlags,
          shouldRevalidate: prefetchOnEnter,
        },
        { path: 'projects/:projectId/settings', element: page(ProjectSettingsPage) },
        { path: 'projects/:projectId/status', element: page(ProjectStatusPage) },
        { path: 'projects/:projectId/change-requests', element: page(ChangeRequestsPage) },
        { path: 'projects/:projectId/change-requests/:id', element: page(ChangeRequestPage) },
        { path: 'archive', element: page(ArchivePage) },
        { path: 'projects/:projectId/flags/:flagName', element: page(FlagPage) },
        { path: 'applications', element: page(ApplicationsPage) },
        { path: 'applications/:appName', element: page(ApplicationOverviewPage) },
        { path: 'segments', element: page(SegmentsPage) },
        { path: 'release-templates', element: page(ReleaseTemplatesPage) },
        { path: 'playground', element: page(PlaygroundPage) },
        { path: 'events', element: page(EventsPage) },
        { path: 'context', element: page(ContextFieldsPage) },
        { path: 'admin/api-tokens', element: page(ApiTokensPage) },
        { path: 'admin/users', element: page(UsersPage) },
        { path: 'admin/groups', element: page(GroupsPage) },
        { path: 'admin/roles', element: page(RolesPage) },
        { path: 'admin/invite-link', element: page(InviteLinkPage) },
        { path: 'admin/import-export', element: page(ImportExportPage) },
        { path: 'admin/banners', element: page(BannersAdminPage) },
        { path: 'admin/signals', element: page(SignalsAdminPage) },
        { path: '*', element: <Navigate to="/projects" replace /> },
      ],
    },
  ],
  { basename },
);

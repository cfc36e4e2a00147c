import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Loading } from './components';
import { LoginPage } from './pages/Login';
import { Shell } from './Shell';

// Pages load on first visit (the initial bundle holds the shell and the login only).
const ProjectsPage = lazy(() => import('./pages/Projects'));
const ProjectFlagsPage = lazy(() => import('./pages/ProjectFlags'));
const FlagPage = lazy(() => import('./pages/Flag'));
const SegmentsPage = lazy(() => import('./pages/Segments'));
const PlaygroundPage = lazy(() => import('./pages/Playground'));
const EventsPage = lazy(() => import('./pages/Events'));
const ContextFieldsPage = lazy(() => import('./pages/ContextFields'));
const ApiTokensPage = lazy(() => import('./pages/ApiTokens'));
const UsersPage = lazy(() => import('./pages/Users'));

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
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: <Navigate to="/projects" replace /> },
        { path: 'projects', element: page(ProjectsPage) },
        { path: 'projects/:projectId', element: page(ProjectFlagsPage) },
        { path: 'projects/:projectId/flags/:flagName', element: page(FlagPage) },
        { path: 'segments', element: page(SegmentsPage) },
        { path: 'playground', element: page(PlaygroundPage) },
        { path: 'events', element: page(EventsPage) },
        { path: 'context', element: page(ContextFieldsPage) },
        { path: 'admin/api-tokens', element: page(ApiTokensPage) },
        { path: 'admin/users', element: page(UsersPage) },
        { path: '*', element: <Navigate to="/projects" replace /> },
      ],
    },
  ],
  { basename },
);

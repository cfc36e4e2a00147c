import {
  Alert,
  Anchor,
  Button,
  Group,
  List,
  Modal,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, del, enc, get, notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { useCan } from '../session';
import { AppIssues, type Overview } from './AppIssues';
import { applicationKeys } from './AppKeys';

/** `GET api/admin/metrics/applications/:appName` (the parts shown). */
interface Details {
  appName: string;
  description: string | null;
  url: string | null;
  color: string | null;
  icon: string | null;
  createdAt: string;
  instances: {
    instanceId: string;
    sdkVersion: string | null;
    sdkType: string;
    clientIp: string | null;
    lastSeen: string;
    environment: string;
  }[];
  seenToggles: { name: string; project: string; type: string; stale: boolean; archived: boolean }[];
}

/**
 * Only an http(s) URL becomes a link. The server refuses other schemes, but a url stored before it
 * did (`javascript:`, `data:`) is shown as text, never as an href.
 */
function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');
const is404 = (error: unknown) => error instanceof ApiError && error.status === 404;
/** A 404 is an answer here (never seen / not registered), not worth a retry. */
const retry = (count: number, error: unknown) => !is404(error) && count < 1;

/**
 * One application: where it runs (environments, instances, SDKs), what it uses (projects, flags)
 * and what may be wrong (unknown flags, unknown strategies, outdated SDKs). Editors edit it, admins delete it.
 */
export default function ApplicationOverviewPage() {
  const appName = useParams().appName!;
  const can = useCan();
  const overview = useQuery({
    queryKey: applicationKeys.overview(appName),
    queryFn: () => get<Overview>(`api/admin/metrics/applications/${enc(appName)}/overview`),
    retry,
  });
  const details = useQuery({
    queryKey: applicationKeys.details(appName),
    queryFn: () => get<Details>(`api/admin/metrics/applications/${enc(appName)}`),
    retry,
  });

  const heading = (
    <Title order={1} size="h2">
      Application {appName}
    </Title>
  );
  if (overview.isPending || details.isPending) return <Loading />;
  if (overview.isError && !is404(overview.error)) return <ErrorState error={overview.error} />;
  if (details.isError && !is404(details.error)) return <ErrorState error={details.error} />;
  const seen = overview.data;
  const app = details.data;
  if (!seen && !app) {
    return (
      <Stack>
        {heading}
        <Alert color="gray" title="Never seen" role="status">
          No SDK has registered or reported metrics as “{appName}”, and nobody created it here. An application
          appears when an SDK using a client or frontend API token registers with this name.{' '}
          <Anchor component={Link} to="/applications">
            Back to applications
          </Anchor>
        </Alert>
      </Stack>
    );
  }

  // Edit: the POST route needs UPDATE_APPLICATION (Editors hold it); delete stays ADMIN only.
  const admin = can('ADMIN');
  const editor = can('UPDATE_APPLICATION');
  return (
    <Stack>
      <Group justify="space-between">
        {heading}
        {admin && app && <DeleteApplication appName={appName} />}
      </Group>
      {app?.description && <Text>{app.description}</Text>}
      {app?.url && (
        <Text size="sm">
          Link:{' '}
          {isHttpUrl(app.url) ? (
            <Anchor href={app.url} target="_blank" rel="noreferrer">
              {app.url}
            </Anchor>
          ) : (
            app.url
          )}
        </Text>
      )}
      {app && (
        <Text size="sm" c="dimmed">
          First seen {when(app.createdAt)}
        </Text>
      )}
      {seen ? (
        <Usage overview={seen} />
      ) : (
        <Alert color="gray" title="Never seen" role="status">
          No SDK has registered or reported metrics as “{appName}” yet: it was only created here.
        </Alert>
      )}
      {seen && <AppIssues overview={seen} />}
      {app && <Instances app={app} />}
      {editor && <EditApplication key={JSON.stringify(app ?? null)} appName={appName} app={app} />}
    </Stack>
  );
}

function Usage({ overview }: { overview: Overview }) {
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Usage
      </Title>
      <Text>
        Flags reported in the last 48 hours: <strong>{overview.featureCount}</strong>
      </Text>
      <Text>
        Projects:{' '}
        {overview.projects.length === 0
          ? 'none'
          : overview.projects.map((p, i) => (
              <span key={p}>
                {i > 0 && ', '}
                <Anchor component={Link} to={`/projects/${enc(p)}`}>
                  {p}
                </Anchor>
              </span>
            ))}
      </Text>
      {overview.environments.length === 0 ? (
        <Empty>No environment has reported this application in the last 48 hours.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Environment</Table.Th>
              <Table.Th>Instances (24 h)</Table.Th>
              <Table.Th>SDKs</Table.Th>
              <Table.Th>Last seen</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {overview.environments.map((e) => (
              <Table.Tr key={e.name}>
                <Table.Td>{e.name}</Table.Td>
                <Table.Td>{e.instanceCount}</Table.Td>
                <Table.Td>
                  {e.sdks.length === 0
                    ? 'unknown'
                    : e.sdks.map((s) => (
                        <Text size="sm" key={s}>
                          {s}
                          {e.issues.outdatedSdks.includes(s) && ' (outdated)'}
                        </Text>
                      ))}
                </Table.Td>
                <Table.Td>{when(e.lastSeen)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function Instances({ app }: { app: Details }) {
  const flags = app.seenToggles;
  return (
    <>
      <Stack gap="xs">
        <Title order={2} size="h3">
          Instances
        </Title>
        {app.instances.length === 0 ? (
          <Empty>No instance has registered.</Empty>
        ) : (
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Instance</Table.Th>
                <Table.Th>Environment</Table.Th>
                <Table.Th>SDK</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Last seen</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {app.instances.map((i) => (
                <Table.Tr key={`${i.environment}/${i.instanceId}`}>
                  <Table.Td>{i.instanceId}</Table.Td>
                  <Table.Td>{i.environment}</Table.Td>
                  <Table.Td>
                    {i.sdkVersion ?? 'unknown'} ({i.sdkType})
                  </Table.Td>
                  <Table.Td>{i.clientIp ?? ''}</Table.Td>
                  <Table.Td>{when(i.lastSeen)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
      <Stack gap="xs">
        <Title order={2} size="h3">
          Flags used (48 h)
        </Title>
        {flags.length === 0 ? (
          <Empty>The application reported no existing flag in the last 48 hours.</Empty>
        ) : (
          <List>
            {flags.map((f) => (
              <List.Item key={f.name}>
                <Anchor component={Link} to={`/projects/${enc(f.project)}/flags/${enc(f.name)}`}>
                  {f.name}
                </Anchor>{' '}
                ({f.project}
                {f.stale && ', stale'}
                {f.archived && ', archived'})
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    </>
  );
}

/** Description, link, icon and colour; absent fields keep their value, so all four are sent. */
function EditApplication({ appName, app }: { appName: string; app: Details | undefined }) {
  const client = useQueryClient();
  const [form, setForm] = useState({
    description: app?.description ?? '',
    url: app?.url ?? '',
    icon: app?.icon ?? '',
    color: app?.color ?? '',
  });
  const save = useMutation({
    mutationFn: () => post(`api/admin/metrics/applications/${enc(appName)}`, form),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: applicationKeys.all });
      notifyDone(`Application "${appName}" saved.`);
    },
  });
  const field = (name: keyof typeof form, label: string, description?: string) => (
    <TextInput
      label={label}
      description={description}
      maxLength={1000}
      value={form[name]}
      onChange={(e) => {
        const value = e.currentTarget.value;
        setForm((f) => ({ ...f, [name]: value }));
      }}
    />
  );
  return (
    <Stack gap="xs" component="section" aria-labelledby="edit-application">
      <Title order={2} size="h3" id="edit-application">
        Edit application
      </Title>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack maw={560}>
          {field('description', 'Description')}
          {field('url', 'URL', 'A link about the application, e.g. its repository.')}
          {field('icon', 'Icon', 'An icon name or image URL.')}
          {field('color', 'Color', 'A CSS colour, e.g. #336699.')}
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save application
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

function DeleteApplication({ appName }: { appName: string }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => del(`api/admin/metrics/applications/${enc(appName)}`),
    onSuccess: async () => {
      client.removeQueries({ queryKey: applicationKeys.details(appName) });
      client.removeQueries({ queryKey: applicationKeys.overview(appName) });
      await client.invalidateQueries({ queryKey: applicationKeys.all });
      notifyDone(`Application "${appName}" deleted.`);
      navigate('/applications');
    },
  });
  return (
    <>
      <Button color="red" variant="outline" onClick={() => setConfirming(true)}>
        Delete application
      </Button>
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={`Delete application ${appName}?`}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack>
          <Text>
            Its registration and instances are removed; its flag metrics stay. It reappears when its SDK
            registers again.
          </Text>
          <Group justify="end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

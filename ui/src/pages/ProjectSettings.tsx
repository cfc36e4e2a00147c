import { Anchor, Button, Group, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { enc, get, notifyDone, put } from '../api';
import { ErrorState, Loading } from '../components';
import { MutationError } from '../dialogs';
import { keys } from '../queries';
import { useCan } from '../session';
import { ProjectAccessSection } from './AccessProjectMembers';
import { accessKeys } from './AccessShared';
import { ChangeRequestSettings } from './ChangeRequestSettings';
import { ProjectActions } from './ProjectActions';

interface ProjectOverview {
  id: string;
  name: string;
  description?: string | null;
  mode: string;
}

// Unleash's collaboration modes. This service stores the mode but restricts nothing by it (yet).
const MODES = [
  { value: 'open', label: 'Open' },
  { value: 'protected', label: 'Protected' },
  { value: 'private', label: 'Private' },
];
const MODE_NOTE = 'Kept for Unleash tools; this service does not restrict access by mode.';

/** A project's name, description and mode, and who holds which role in it. */
export default function ProjectSettingsPage() {
  const { projectId = '' } = useParams();
  const project = useQuery({
    queryKey: accessKeys.project(projectId),
    queryFn: () => get<ProjectOverview>(`api/admin/projects/${enc(projectId)}/overview`),
  });
  if (project.isPending) return <Loading />;
  if (project.isError) return <ErrorState error={project.error} />;
  return (
    <Stack>
      <Anchor component={Link} to={`/projects/${enc(projectId)}`} size="sm">
        ← {project.data.name}
      </Anchor>
      <Title order={1} size="h2">
        Settings of {project.data.name}
      </Title>
      {/* Keyed by what was loaded: the form starts again from the saved state after a save. */}
      <ProjectForm
        key={`${project.data.name}|${project.data.description}|${project.data.mode}`}
        project={project.data}
      />
      <ChangeRequestSettings projectId={projectId} />
      <ProjectActions projectId={projectId} />
      <ProjectAccessSection projectId={projectId} />
    </Stack>
  );
}

function ProjectForm({ project }: { project: ProjectOverview }) {
  const client = useQueryClient();
  const canEdit = useCan()('UPDATE_PROJECT', project.id);
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description ?? '');
  const [mode, setMode] = useState(project.mode);
  const save = useMutation({
    // Only what the form shows; the other settings keep their values (absent keeps).
    mutationFn: () =>
      put(`api/admin/projects/${enc(project.id)}`, {
        name: name.trim(),
        description: description.trim() || null,
        mode,
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.project(project.id) });
      await client.invalidateQueries({ queryKey: keys.projects });
      notifyDone('Project settings saved.');
    },
  });
  const modeLabel = MODES.find((m) => m.value === project.mode)?.label ?? project.mode;
  return (
    <section aria-labelledby="project-details">
      <Title order={2} size="h4" id="project-details" mb="xs">
        Project
      </Title>
      {canEdit ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <Stack maw={560}>
            <TextInput label="Project ID" value={project.id} readOnly description="It cannot change." />
            <TextInput
              label="Project name"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <Textarea
              label="Description"
              autosize
              minRows={2}
              value={description}
              onChange={(e) => setDescription(e.currentTarget.value)}
            />
            <Select
              label="Mode"
              description={MODE_NOTE}
              data={MODES}
              value={mode}
              allowDeselect={false}
              onChange={(v) => v && setMode(v)}
            />
            <MutationError error={save.error} />
            <Group>
              <Button type="submit" loading={save.isPending} disabled={!name.trim()}>
                Save settings
              </Button>
            </Group>
          </Stack>
        </form>
      ) : (
        <Stack gap={4}>
          <Text>Project ID: {project.id}</Text>
          <Text>Name: {project.name}</Text>
          <Text>Description: {project.description || 'none'}</Text>
          <Text>Mode: {modeLabel}</Text>
        </Stack>
      )}
    </section>
  );
}

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, uniqueName } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, pick, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * Identity and access in headless Chromium against the real service: groups with members, a
 * custom root role (and the service's refusal to delete it while in use), an invite link, and a
 * project's settings and access. Each page passes axe (WCAG 2 A and AA); a Viewer gets no edit
 * controls on project settings.
 */
describe('web UI: groups, roles, invite link, project settings (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  let admin: { id: number; username: string };
  let member: { id: number; username: string };
  const project = slug('ui-access');

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    const created = await t.send('POST', '/api/admin/projects', { id: project, name: project });
    expect(created.statusCode, created.body).toBe(201);
    admin = await createUser(t, 'Admin');
    member = await createUser(t, 'Viewer');
  });
  afterAll(() => stopUi(browser, t));

  it('creates a group with a member', async () => {
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('heading', { name: 'Groups' }).waitFor();
    await page.getByRole('button', { name: 'New group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New group' });
    const name = uniqueName('Checkout team');
    await dialog.getByLabel('Group name').fill(name);
    await dialog.getByLabel('Description').fill('People who own checkout');
    await pick(page, dialog, 'Members', member.username);
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await page.getByText(`Group "${name}" created.`).waitFor();

    const { groups } = await getJson(t, '/api/admin/groups');
    const group = groups.find((g: { name: string }) => g.name === name);
    expect(group?.description).toBe('People who own checkout');
    expect(group?.users.map((u: { user: { id: number } }) => u.user.id)).toEqual([member.id]);
    const row = page.getByRole('row').filter({ hasText: name });
    await row.getByRole('cell', { name: member.username, exact: true }).waitFor();
    await check(page, 'groups');

    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete group ${name}` });
    await confirm.getByRole('button', { name: 'Delete group' }).click();
    await page.getByText(`Group "${name}" deleted.`).waitFor();
    expect(
      (await getJson(t, '/api/admin/groups')).groups.some((g: { id: number }) => g.id === group.id),
    ).toBe(false);
    expect(browser.errors).toEqual([]);
  });

  it('creates a custom root role with one permission, and shows why it cannot be deleted in use', async () => {
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { name: 'Roles' }).waitFor();
    // Predefined roles are listed read-only: their permissions can be seen, not edited.
    await page.getByText('Editor', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Edit Editor' }).count()).toBe(0);

    await page.getByRole('button', { name: 'New role' }).click();
    const dialog = page.getByRole('dialog', { name: 'New role' });
    const name = uniqueName('Segment keeper');
    await dialog.getByLabel('Role name').fill(name);
    await dialog.getByRole('radio', { name: 'Root role' }).check();
    await dialog.getByRole('checkbox', { name: 'Create segments' }).check();
    await check(page, 'role-editor');
    await dialog.getByRole('button', { name: 'Create role' }).click();
    await page.getByText(`Role "${name}" created.`).waitFor();
    await page.getByRole('row').filter({ hasText: name }).getByText('Custom root role').waitFor();

    const { roles } = await getJson(t, '/api/admin/roles');
    const role = roles.find((r: { name: string }) => r.name === name);
    expect(role?.type).toBe('root-custom');
    expect((await getJson(t, `/api/admin/roles/${role.id}`)).permissions).toEqual([
      { name: 'CREATE_SEGMENT' },
    ]);
    await check(page, 'roles');

    // Edited: a permission limited to one environment joins it.
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    const edit = page.getByRole('dialog', { name: `Edit role ${name}` });
    await edit.getByRole('checkbox', { name: 'Change strategies' }).check();
    await pick(page, edit, 'Environments for change strategies', 'production');
    await page.keyboard.press('Escape');
    await edit.getByRole('button', { name: 'Save role' }).click();
    await page.getByText(`Role "${name}" saved.`).waitFor();
    expect((await getJson(t, `/api/admin/roles/${role.id}`)).permissions).toEqual([
      { name: 'CREATE_SEGMENT' },
      { name: 'UPDATE_FEATURE_STRATEGY', environment: 'production' },
    ]);

    // Held by a user, the role cannot go: the dialog shows the service's reason.
    await createUser(t, role.id);
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete role ${name}` });
    await confirm.getByRole('button', { name: 'Delete role' }).click();
    await confirm.getByRole('alert').getByText(`The role "${name}" is in use by 1 user(s)`).waitFor();
    expect((await getJson(t, '/api/admin/roles')).roles.some((r: { id: number }) => r.id === role.id)).toBe(
      true,
    );
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(browser.errors).toEqual([]);
  });

  it('creates an invite link, shows its URL, and disables it', async () => {
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'Invite link' }).click();
    await page.getByRole('heading', { name: 'Invite link', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New invite link' }).click();
    const dialog = page.getByRole('dialog', { name: 'New invite link' });
    const name = uniqueName('Team invite');
    await dialog.getByLabel('Name').fill(name);
    await pick(page, dialog, 'Expires in', '2 weeks');
    await dialog.getByRole('button', { name: 'Create invite link' }).click();

    const shown = (await page.getByLabel('Invite link URL').textContent())?.trim() ?? '';
    expect(shown).toMatch(/\/new-user\?invite=[0-9a-f]{32}$/);
    const secret = new URL(shown).searchParams.get('invite') ?? '';
    // The URL shown is a working link.
    expect((await t.send('GET', `/invite/${secret}/validate`)).statusCode).toBe(200);
    await page.getByRole('button', { name: 'Copy link' }).waitFor();
    const listed = (await getJson(t, '/api/admin/invite-link/tokens')).tokens.find(
      (x: { name: string }) => x.name === name,
    );
    const days = (new Date(listed.expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThan(14.1);
    await check(page, 'invite-link');

    await page.getByRole('button', { name: `Change ${name}` }).click();
    const change = page.getByRole('dialog', { name: `Change ${name}` });
    await change.getByRole('checkbox', { name: 'Link enabled' }).uncheck();
    await change.getByRole('button', { name: 'Save invite link' }).click();
    await page.getByText(`Invite link ${name} changed.`).waitFor();
    await page.getByRole('row').filter({ hasText: name }).getByRole('cell', { name: 'Disabled' }).waitFor();
    expect((await t.send('GET', `/invite/${secret}/validate`)).statusCode).toBe(400);
    expect(browser.errors).toEqual([]);
  });

  it("changes a project's description and gives a user the Member role in it", async () => {
    await signIn(browser, url, admin.username);
    // No link leads here yet (the project flags page is another file): open the URL.
    await page.goto(`${url}/projects/${project}/settings`);
    await page.getByRole('heading', { name: `Settings of ${project}` }).waitFor();
    await page.getByLabel('Description').fill('Payments and checkout flags');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Project settings saved.').waitFor();
    const overview = await getJson(t, `/api/admin/projects/${project}/overview`);
    expect(overview.description).toBe('Payments and checkout flags');
    expect(overview.name).toBe(project);

    await page.getByRole('button', { name: 'Add user or group' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add user or group' });
    await pick(page, dialog, 'User', member.username);
    await pick(page, dialog, 'Project role', 'Member');
    await check(page, 'project-access-add');
    await dialog.getByRole('button', { name: 'Add to project' }).click();
    await page.getByText(`${member.username} has the role Member in the project.`).waitFor();
    await page.getByRole('row').filter({ hasText: member.username }).waitFor();

    const access = await getJson(t, `/api/admin/projects/${project}/access`);
    const memberRole = access.roles.find((r: { name: string }) => r.name === 'Member');
    const held = access.users.find((u: { id: number }) => u.id === member.id);
    expect(held?.roles).toEqual([memberRole.id]);
    await check(page, 'project-settings');

    // A second role, picked in the row: the user holds both.
    await pick(page, page, `Project roles of ${member.username}`, 'Reader');
    await page.getByText(`${member.username} has new roles in the project.`).waitFor();
    const readerRole = access.roles.find((r: { name: string }) => r.name === 'Reader');
    const after = await getJson(t, `/api/admin/projects/${project}/access`);
    expect(after.users.find((u: { id: number }) => u.id === member.id)?.roles.sort()).toEqual(
      [memberRole.id, readerRole.id].sort(),
    );
    expect(browser.errors).toEqual([]);
  });

  it('shows a Viewer the project settings without edit controls', async () => {
    const viewer = await createUser(t, 'Viewer');
    await signIn(browser, url, viewer.username);
    await page.goto(`${url}/projects/${project}/settings`);
    await page.getByRole('heading', { name: `Settings of ${project}` }).waitFor();
    await page.getByText('Description: Payments and checkout flags').waitFor();
    await page.getByRole('row').filter({ hasText: member.username }).getByText('Member').waitFor();
    expect(await page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add user or group' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});

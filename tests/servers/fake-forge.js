// fake-forge.js - a stateful in-memory GitHub, GitLab or Gitea/Forgejo, just the
// endpoints tracegate calls, run behind `prism proxy --errors SPEC` so that
// every request is checked against the forge's published description and every
// answer of this fake against the same description on the way back.
//
//   node fake-forge.js KIND PORT PUBLIC_URL        KIND: github | gitlab | gitea
//
// PUBLIC_URL is prism's address: it goes into url fields and Link headers, so
// that a client following them stays behind the validator.
// Environment: FAKE_TOKEN  the token a request must carry (else 401)
//              FAKE_PAGE_MAX  largest page (default 100; tests use less to cross pages)
//              FAKE_LINK=0  no Link header (GitLab: x-next-page only; Gitea:
//                           x-total-count only), to exercise those paths
//              FAKE_TLS_CERT, FAKE_TLS_KEY  PEM files: serve HTTPS instead of HTTP
//                           (tests/it_security.sh: TLS verification)
//              FAKE_ECHO_AUTH=1  a 401 quotes the credentials it got back (a careless
//                           server: the client must not log them)
// GET /user (each forge's "who is this token") answers tracegate-bot.
// Hooks, on this port (not through prism):
//   GET  /_fake/state   everything kept: comments, statuses, check_runs, labels, requests
//   POST /_fake/fail    {"count":1,"status":500|502|429|403,"retry_after":"1","apply":false,
//                        "delay_ms":0,"method":"POST","path":"/comments"}: the next matching API
//                        requests (method, and a part of the path when given) fail (apply: do
//                        the work first, then fail: a create that "may have worked"; delay_ms
//                        longer than the client's timeout: a forge that times out)
//   POST /_fake/seed    {"repo","pr","count":150,"quote":"..."} other comments;
//                       {"repo","pr","body","by"} one comment by user "by";
//                       {"repo","pr","head","base","state","ref","head_repo"} the pull request itself (GET
//                       .../pulls/N, GitLab's merge request): head commit, target branch (main), open (or
//                       closed), the branch it comes from (feature) and that branch's repository (repo);
//                       {"repo","ci_run","run_head","run_branch","run_repo","run_mr"} a CI run (GitHub:
//                       GET .../actions/runs/ID; GitLab: GET .../pipelines/ID): the commit it ran on, its
//                       branch and that branch's repository (GitHub), or the merge request whose
//                       refs/merge-requests/N/head it ran on (GitLab)
//                       {"repo","sha","author"} who wrote a commit; {"repo","collaborator","permission"}
//                       what they may do (GitHub: GET .../commits/SHA, .../collaborators/U/permission)
//                       {"repo","pr","labels":[{"name","by"}]} labels (and GitHub events)
//                       {"repo","push":false} the token may read the repository but not write
//                       to it (GitHub, Gitea: permissions.push false; GitLab: Reporter, 20)
// GET /repos/{owner}/{repo} (GitLab: GET /projects/{id}) answers any repository, with the
// token's permissions: push (Developer, 30, on GitLab) unless seeded otherwise; what
// `tracegate daemon --check` asks.
'use strict';
const http = require('http');
const https = require('https');
const fs = require('fs');

const [kind, portArg, publicArg] = process.argv.slice(2);
if (!['github', 'gitlab', 'gitea'].includes(kind)) {
  console.error('usage: node fake-forge.js github|gitlab|gitea PORT PUBLIC_URL');
  process.exit(2);
}
const port = Number(portArg);
const pub = publicArg || `http://127.0.0.1:${port}`;
const token = process.env.FAKE_TOKEN || '';
const pageMax = Number(process.env.FAKE_PAGE_MAX || 100);
const withLink = process.env.FAKE_LINK !== '0';
const prefix = { github: '', gitlab: '/api/v4', gitea: '/api/v1' }[kind];

const state = { comments: [], statuses: [], check_runs: [], labels: {}, pulls: {}, authors: {}, permissions: {},
  readOnly: {}, ci_runs: {}, requests: [] };
// GitHub's pull-request object is large: the description's own example (FAKE_SPEC, the
// subset served by prism) with the seeded state, head and base put in
const spec = process.env.FAKE_SPEC ? JSON.parse(fs.readFileSync(process.env.FAKE_SPEC, 'utf8')) : null;
const ghPullExample = spec?.components?.examples?.['pull-request']?.value;
const ghCommitExample = spec?.components?.examples?.commit?.value;
const ghPermExample = spec?.components?.examples?.['repository-collaborator-permission-response-if-user-has-admin-permissions']?.value;
const ghRepoExample = spec?.components?.examples?.['full-repository-default-response']?.value;
const ghRunExample = spec?.components?.examples?.['workflow-run']?.value;
const fails = [];
let nextId = 1000;
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

// ------------------------------------------------------------ renderings
// Each login its own id (the daemon edits only comments whose author's id is
// the token's own: GET /user answers the bot, tracegate-bot).
const BOT = 'tracegate-bot';
function idOf(login) {
  let h = 7;
  for (const ch of login) h = (h * 31 + ch.charCodeAt(0)) % 1000003;
  return h + 1;
}
function ghUser(login) {
  const u = `${pub}/users/${login}`;
  return { login, id: idOf(login), node_id: `U_${idOf(login)}`, avatar_url: `${pub}/a.png`, gravatar_id: '', url: u,
    html_url: `https://github.test/${login}`, followers_url: `${u}/followers`, following_url: `${u}/following{/other_user}`,
    gists_url: `${u}/gists{/gist_id}`, starred_url: `${u}/starred{/owner}{/repo}`, subscriptions_url: `${u}/subscriptions`,
    organizations_url: `${u}/orgs`, repos_url: `${u}/repos`, events_url: `${u}/events{/privacy}`,
    received_events_url: `${u}/received_events`, type: 'Bot', site_admin: false };
}
// GET /user on GitHub: the public-user schema (user_view_type picks it)
const ghMe = () => ({ ...ghUser(BOT), user_view_type: 'public', name: BOT, company: null, blog: '', location: null,
  email: null, hireable: null, bio: null, public_repos: 0, public_gists: 0, followers: 0, following: 0,
  created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z' });
const glUser = (username) => ({ id: idOf(username), username, name: username, state: 'active', avatar_url: `${pub}/a.png`,
  web_url: `https://gitlab.test/${username}` });
const gtUser = (login) => ({ id: idOf(login), login, full_name: login, email: `${login}@example.test`, avatar_url: `${pub}/a.png`,
  language: 'en-US', is_admin: false, last_login: '2024-01-01T00:00:00Z', created: '2024-01-01T00:00:00Z', restricted: false });

// A repository with the token's permissions (push unless seeded read-only).
function repository(repo) {
  const push = !state.readOnly[repo];
  const [owner, name] = repo.split('/');
  if (kind === 'github') {
    const o = ghRepoExample ? JSON.parse(JSON.stringify(ghRepoExample)) : { id: 1, name, full_name: repo };
    Object.assign(o, { name, full_name: repo, permissions: { admin: false, maintain: false, push, triage: push, pull: true } });
    // (the example and its source repository lack the "language" their schema requires)
    for (const x of [o, o.source, o.parent]) if (x && !('language' in x)) x.language = null;
    if (o.owner) o.owner = ghUser(owner);
    return o;
  }
  if (kind === 'gitlab')
    return { id: 1, name, path: name, path_with_namespace: repo, name_with_namespace: `${owner} / ${name}`,
      default_branch: 'main', web_url: `https://gitlab.test/${repo}`,
      permissions: { project_access: { access_level: push ? 30 : 20, notification_level: 3 }, group_access: null } };
  return { id: 1, name, full_name: repo, owner: gtUser(owner), private: false, fork: false, empty: false,
    default_branch: 'main', html_url: `https://gitea.test/${repo}`, permissions: { admin: false, push, pull: true } };
}

const render = {
  github: {
    comment: (c) => ({ id: c.id, node_id: `IC_${c.id}`, url: `${pub}/repos/${c.repo}/issues/comments/${c.id}`,
      html_url: `https://github.test/${c.repo}/pull/${c.pr}#issuecomment-${c.id}`, body: c.body, user: ghUser(c.user),
      created_at: c.created_at, updated_at: c.updated_at, issue_url: `${pub}/repos/${c.repo}/issues/${c.pr}`,
      author_association: 'NONE' }),
    status: (s) => ({ url: `${pub}/repos/${s.repo}/statuses/${s.sha}`, avatar_url: null, id: s.id, node_id: `SC_${s.id}`,
      state: s.state, description: s.description ?? null, target_url: s.target_url ?? null, context: s.context,
      created_at: s.created_at, updated_at: s.created_at, creator: ghUser('tracegate-bot') }),
    label: (l, i) => ({ id: i + 1, node_id: `LA_${i + 1}`, url: `${pub}/labels/${encodeURIComponent(l.name)}`, name: l.name,
      description: null, color: 'ededed', default: false }),
    event: (l, i) => ({ id: i + 1, node_id: `LE_${i + 1}`, url: `${pub}/events/${i + 1}`, actor: ghUser(l.by || 'someone'),
      event: 'labeled', commit_id: null, commit_url: null, created_at: '2024-01-01T00:00:00Z',
      performed_via_github_app: null, label: { name: l.name, color: 'ededed' } }),
    check: (r) => ({ id: r.id, node_id: `CR_${r.id}`, head_sha: r.head_sha, external_id: null,
      url: `${pub}/repos/${r.repo}/check-runs/${r.id}`, html_url: `https://github.test/${r.repo}/runs/${r.id}`,
      details_url: r.details_url ?? null, status: r.status, conclusion: r.conclusion ?? null, started_at: r.created_at,
      completed_at: r.status === 'completed' ? r.updated_at : null,
      output: { title: r.output?.title ?? null, summary: r.output?.summary ?? null, text: null, annotations_count: 0,
        annotations_url: `${pub}/repos/${r.repo}/check-runs/${r.id}/annotations` },
      name: r.name, check_suite: { id: 1 }, app: null, pull_requests: [] }),
  },
  gitlab: {
    comment: (c) => ({ id: c.id, type: null, body: c.body, attachment: null, author: glUser(c.user),
      created_at: c.created_at, updated_at: c.updated_at, system: false, noteable_id: 1, noteable_type: 'MergeRequest',
      noteable_iid: c.pr, project_id: 1, resolvable: false, confidential: false, internal: false }),
    status: (s) => ({ id: s.id, sha: s.sha, status: s.state, name: s.context, target_url: s.target_url ?? '',
      description: s.description ?? '', created_at: s.created_at, allow_failure: false, author: glUser('tracegate-bot') }),
  },
  gitea: {
    comment: (c) => ({ id: c.id, html_url: `https://gitea.test/${c.repo}/pulls/${c.pr}#issuecomment-${c.id}`,
      pull_request_url: `https://gitea.test/${c.repo}/pulls/${c.pr}`, issue_url: '', user: gtUser(c.user),
      original_author: '', original_author_id: 0, body: c.body, created_at: c.created_at, updated_at: c.updated_at }),
    status: (s) => ({ id: s.id, status: s.state, context: s.context, description: s.description ?? '',
      target_url: s.target_url ?? '', url: `${pub}${prefix}/repos/${s.repo}/statuses/${s.sha}`, created_at: s.created_at,
      updated_at: s.created_at, creator: gtUser('tracegate-bot') }),
    label: (l, i) => ({ id: i + 1, name: l.name, color: 'ededed', description: '', url: `${pub}${prefix}/labels/${i + 1}` }),
  },
}[kind];

// --------------------------------------------------------------- helpers
function page(url, items, perName, defPer) {
  const per = Math.min(Number(url.searchParams.get(perName)) || defPer, pageMax);
  const n = Math.max(1, Number(url.searchParams.get('page')) || 1);
  const last = Math.max(1, Math.ceil(items.length / per));
  const headers = {};
  const at = (p) => `<${pub}${url.pathname}?${perName}=${per}&page=${p}>`;
  const link = [];
  if (n < last) link.push(`${at(n + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (n > 1) link.push(`${at(1)}; rel="first"`, `${at(n - 1)}; rel="prev"`);
  if (withLink && link.length) headers.Link = link.join(', ');
  if (kind === 'gitlab') Object.assign(headers, { 'X-Page': String(n), 'X-Per-Page': String(per),
    'X-Next-Page': n < last ? String(n + 1) : '', 'X-Total': String(items.length), 'X-Total-Pages': String(last) });
  if (kind === 'gitea') headers['X-Total-Count'] = String(items.length);
  return { code: 200, obj: items.slice((n - 1) * per, n * per), headers };
}

function authorized(req) {
  const h = kind === 'gitlab' ? req.headers['private-token'] : req.headers.authorization;
  const want = { github: `Bearer ${token}`, gitlab: token, gitea: `token ${token}` }[kind];
  return !token || h === want || (kind === 'gitlab' && req.headers.authorization === `Bearer ${token}`);
}

function addComment(repo, pr, body, user = 'tracegate-bot') {
  const t = now();
  const c = { id: nextId++, repo, pr, body, user, created_at: t, updated_at: t };
  state.comments.push(c);
  return c;
}

// ---------------------------------------------------------------- routes
// Each returns {code, obj, headers} or undefined (no such route).
function route(m, url, body) {
  const p = url.pathname.slice(prefix.length);
  const commentsOf = (repo, pr) => state.comments.filter((c) => c.repo === repo && c.pr === pr).map(render.comment);
  let r;
  const pullOf = (repo, n) => state.pulls[`${repo}#${n}`];
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/)) && m === 'GET' && kind !== 'gitlab') {
    const pr = pullOf(r[1], r[2]);
    if (!pr) return { code: 404, obj: { message: 'Not Found' } };
    if (kind === 'github' && ghPullExample) {
      const o = JSON.parse(JSON.stringify(ghPullExample));
      // (the example's requested team lacks the "type" its own schema requires)
      Object.assign(o, { number: Number(r[2]), state: pr.state, requested_teams: [] });
      o.head.sha = pr.head;
      o.head.ref = pr.ref;
      if (o.head.repo) o.head.repo.full_name = pr.head_repo || r[1];
      o.base.ref = pr.base;
      return { code: 200, obj: o };
    }
    return { code: 200, obj: { id: Number(r[2]), number: Number(r[2]), state: pr.state, title: 'a pull request',
      head: { label: pr.ref, ref: pr.ref, sha: pr.head }, base: { label: pr.base, ref: pr.base, sha: pr.head } } };
  }
  // a CI run (GitHub Actions: a workflow run): what the daemon asks to confirm a run's origin
  if (kind === 'github' && m === 'GET' && ghRunExample && (r = p.match(/^\/repos\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)$/))) {
    const run = state.ci_runs[`${r[1]}@${r[2]}`];
    if (!run) return { code: 404, obj: { message: 'Not Found' } };
    const o = JSON.parse(JSON.stringify(ghRunExample));
    Object.assign(o, { id: Number(r[2]), head_sha: run.run_head, head_branch: run.run_branch || 'feature',
      event: 'pull_request', pull_requests: [] });
    if (o.head_repository) o.head_repository.full_name = run.run_repo || r[1];
    return { code: 200, obj: o };
  }
  // who wrote a commit, and what may they do (GitHub: a Tracegate-Accept trailer counts from writers)
  if (kind === 'github' && m === 'GET' && ghCommitExample && (r = p.match(/^\/repos\/([^/]+\/[^/]+)\/commits\/([0-9a-f]{40})$/))) {
    const login = state.authors[`${r[1]}@${r[2]}`];
    if (!login) return { code: 404, obj: { message: 'Not Found' } };
    const o = JSON.parse(JSON.stringify(ghCommitExample));
    o.sha = r[2];
    o.author = ghUser(login);
    return { code: 200, obj: o };
  }
  if (kind === 'github' && m === 'GET' && ghPermExample && (r = p.match(/^\/repos\/([^/]+\/[^/]+)\/collaborators\/([^/]+)\/permission$/))) {
    const perm = state.permissions[`${r[1]}@${r[2]}`];
    if (!perm) return { code: 404, obj: { message: 'Not Found' } };
    const o = JSON.parse(JSON.stringify(ghPermExample));
    Object.assign(o, { permission: perm, role_name: perm, user: { ...ghUser(r[2]), role_name: perm } });
    return { code: 200, obj: o };
  }
  if (m === 'GET' && kind !== 'gitlab' && (r = p.match(/^\/repos\/([^/]+\/[^/]+)$/)))
    return { code: 200, obj: repository(r[1]) };
  if (m === 'GET' && kind === 'gitlab' && (r = p.match(/^\/projects\/([^/]+)$/)))
    return { code: 200, obj: repository(decodeURIComponent(r[1])) };
  if (p === '/user' && m === 'GET')
    return { code: 200, obj: { github: ghMe, gitlab: () => glUser(BOT), gitea: () => gtUser(BOT) }[kind]() };
  if (kind === 'gitlab') {
    if ((r = p.match(/^\/projects\/([^/]+)\/statuses\/([0-9a-f]{40})$/)) && m === 'POST') {
      const s = { id: nextId++, repo: decodeURIComponent(r[1]), sha: r[2], state: body.state, context: body.name || body.context || 'default',
        description: body.description, target_url: body.target_url, created_at: now() };
      state.statuses.push(s);
      return { code: 201, obj: render.status(s) }; // real GitLab answers 201 (the spec says 200)
    }
    if ((r = p.match(/^\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes$/))) {
      const repo = decodeURIComponent(r[1]);
      const pr = Number(r[2]);
      if (m === 'GET') return page(url, commentsOf(repo, pr), 'per_page', 20);
      if (m === 'POST') return { code: 201, obj: render.comment(addComment(repo, pr, body.body)) };
    }
    if ((r = p.match(/^\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes\/(\d+)$/)) && m === 'PUT') return edit(Number(r[3]), body);
    if ((r = p.match(/^\/projects\/([^/]+)\/merge_requests\/(\d+)$/)) && m === 'GET') {
      const labels = state.labels[`${decodeURIComponent(r[1])}#${r[2]}`] || [];
      const pr = state.pulls[`${decodeURIComponent(r[1])}#${r[2]}`];
      return { code: 200, obj: { id: 1, iid: Number(r[2]), project_id: 1, title: 'a merge request',
        state: pr ? { open: 'opened' }[pr.state] || pr.state : 'opened', labels: labels.map((l) => l.name),
        ...(pr ? { sha: pr.head, target_branch: pr.base, source_branch: pr.ref } : {}) } };
    }
    // a CI run (a pipeline): the commit it ran on and its ref
    if ((r = p.match(/^\/projects\/([^/]+)\/pipelines\/(\d+)$/)) && m === 'GET') {
      const run = state.ci_runs[`${decodeURIComponent(r[1])}@${r[2]}`];
      if (!run) return { code: 404, obj: { message: '404 Not found' } };
      const t = now();
      return { code: 200, obj: { id: Number(r[2]), iid: 1, project_id: 1, sha: run.run_head,
        ref: run.run_mr ? `refs/merge-requests/${run.run_mr}/head` : run.run_branch || 'feature', status: 'success',
        source: run.run_mr ? 'merge_request_event' : 'push', created_at: t, updated_at: t,
        web_url: `https://gitlab.test/pipelines/${r[2]}` } };
    }
    return undefined;
  }
  // GitHub and Gitea share their paths
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/statuses\/([0-9a-f]{40})$/)) && m === 'POST') {
    const s = { id: nextId++, repo: r[1], sha: r[2], state: body.state, context: body.context || 'default',
      description: body.description, target_url: body.target_url, created_at: now() };
    state.statuses.push(s);
    return { code: 201, obj: render.status(s) };
  }
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/))) {
    if (m === 'GET') return page(url, commentsOf(r[1], Number(r[2])), kind === 'github' ? 'per_page' : 'limit', 30);
    if (m === 'POST') return { code: 201, obj: render.comment(addComment(r[1], Number(r[2]), body.body)) };
  }
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/)) && m === 'PATCH') return edit(Number(r[2]), body);
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/labels$/)) && m === 'GET') {
    const labels = state.labels[`${r[1]}#${r[2]}`] || [];
    return page(url, labels.map(render.label), kind === 'github' ? 'per_page' : 'limit', 30);
  }
  if (kind !== 'github') return undefined;
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/events$/)) && m === 'GET') {
    const labels = state.labels[`${r[1]}#${r[2]}`] || [];
    return page(url, labels.map(render.event), 'per_page', 30);
  }
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/commits\/([^/]+)\/check-runs$/)) && m === 'GET') {
    const name = url.searchParams.get('check_name');
    const runs = state.check_runs.filter((x) => x.repo === r[1] && x.head_sha === r[2] && (!name || x.name === name));
    return { code: 200, obj: { total_count: runs.length, check_runs: runs.map(render.check) } };
  }
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/check-runs$/)) && m === 'POST') {
    const t = now();
    const run = { id: nextId++, repo: r[1], created_at: t, updated_at: t, ...body,
      status: body.conclusion ? 'completed' : body.status || 'queued' };
    state.check_runs.push(run);
    return { code: 201, obj: render.check(run) };
  }
  if ((r = p.match(/^\/repos\/([^/]+\/[^/]+)\/check-runs\/(\d+)$/)) && m === 'PATCH') {
    const run = state.check_runs.find((x) => x.id === Number(r[2]));
    if (!run) return { code: 404, obj: { message: 'Not Found' } };
    Object.assign(run, body, { updated_at: now() });
    if (body.conclusion) run.status = 'completed';
    if (body.status === 'in_progress') run.conclusion = null;
    return { code: 200, obj: render.check(run) };
  }
  return undefined;
}

function edit(id, body) {
  const c = state.comments.find((x) => x.id === id);
  if (!c) return { code: 404, obj: { message: 'Not Found' } };
  Object.assign(c, { body: body.body, updated_at: now() });
  return { code: 200, obj: render.comment(c) };
}

// ----------------------------------------------------------------- hooks
function hook(m, p, body) {
  if (m === 'GET' && p === '/_fake/state') return state;
  if (m === 'POST' && p === '/_fake/fail') {
    for (let i = 0; i < (body.count || 1); i++) fails.push(body);
    return { queued: fails.length };
  }
  if (m === 'POST' && p === '/_fake/seed') {
    for (let i = 0; i < (body.count || 0); i++)
      addComment(body.repo, body.pr, i === 70 && body.quote ? body.quote : `seeded comment ${i + 1}`, `user${i % 7}`);
    if (body.labels) state.labels[`${body.repo}#${body.pr}`] = body.labels;
    if (body.body) addComment(body.repo, body.pr, body.body, body.by || 'someone');
    if (body.head) state.pulls[`${body.repo}#${body.pr}`] = { head: body.head, base: body.base || 'main', state: body.state || 'open',
      ref: body.ref || 'feature', head_repo: body.head_repo };
    if (body.ci_run) state.ci_runs[`${body.repo}@${body.ci_run}`] = body;
    if (body.sha && body.author) state.authors[`${body.repo}@${body.sha}`] = body.author;
    if (body.collaborator) state.permissions[`${body.repo}@${body.collaborator}`] = body.permission;
    if (body.push === false) state.readOnly[body.repo] = true;
    return { comments: state.comments.length };
  }
  return undefined;
}

// ---------------------------------------------------------------- server
function send(res, code, obj, headers = {}) {
  res.writeHead(code, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(obj === undefined ? '' : JSON.stringify(obj));
}

const tls = process.env.FAKE_TLS_CERT
  ? { cert: fs.readFileSync(process.env.FAKE_TLS_CERT), key: fs.readFileSync(process.env.FAKE_TLS_KEY) }
  : null;
const handler = (req, res) => {
  let raw = '';
  req.on('data', (d) => (raw += d));
  req.on('end', () => {
    const url = new URL(req.url, 'http://fake');
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return send(res, 400, { message: 'Problems parsing JSON' });
    }
    if (url.pathname.startsWith('/_fake/')) {
      const out = hook(req.method, url.pathname, body);
      return out ? send(res, 200, out) : send(res, 404, { message: 'no such hook' });
    }
    console.log(`fake-${kind}: ${req.method} ${url.pathname}${url.search} ${raw.length} bytes`);
    const log = { method: req.method, path: url.pathname, status: 0 };
    state.requests.push(log);
    if (!authorized(req)) {
      log.status = 401;
      const got = req.headers.authorization || req.headers['private-token'] || '';
      return send(res, 401, { message: process.env.FAKE_ECHO_AUTH === '1' ? `Bad credentials: ${got}` : 'Bad credentials' });
    }
    const fi = fails.findIndex((f) => (!f.method || f.method === req.method) && (!f.path || url.pathname.includes(f.path)));
    const fail = fi >= 0 ? fails.splice(fi, 1)[0] : null;
    let out;
    if (!fail || fail.apply) out = route(req.method, url, body) || { code: 404, obj: { message: 'Not Found' } };
    const answer = () => {
      if (fail) {
        const headers = fail.retry_after ? { 'Retry-After': String(fail.retry_after) } : {};
        const message = fail.status === 403 ? 'You have exceeded a secondary rate limit.' : 'fake failure';
        log.status = fail.status;
        return send(res, fail.status, { message }, headers);
      }
      log.status = out.code;
      send(res, out.code, out.obj, out.headers);
    };
    if (fail && fail.delay_ms) setTimeout(answer, fail.delay_ms);
    else answer();
  });
};
(tls ? https.createServer(tls, handler) : http.createServer(handler))
  .on('tlsClientError', (e) => console.log(`fake-${kind}: TLS handshake failed: ${e.message}`))
  .listen(port, '127.0.0.1', () => console.log(`fake-${kind} on ${tls ? 'https' : 'http'}://127.0.0.1:${port}, public ${pub}`));
process.on('SIGTERM', () => process.exit(0));

// One valid example of every inner message, shared by the parser tests and the vectors.
export const TS = 1_767_225_600_000;

export const SESSION = {
  sessionId: 's-1',
  title: 'Fix the flaky test',
  cwd: '/home/me/repo',
  state: 'running',
  lastActivity: TS,
  dispatched: true,
  access: 'standard',
  live: true,
  activity: 'bash',
  steps: [{ tool: 'read', count: 5 }, { tool: 'bash' }],
  stepCount: 40,
};

export const QUESTION_ITEM = {
  id: 'q1',
  prompt: 'Which database?',
  options: [
    { id: 'pg', label: 'PostgreSQL' },
    { id: 'lite', label: 'SQLite', description: 'embedded' },
  ],
  multiSelect: false,
  allowFreeText: true,
};

// E6: X25519 public keys from NaCl's published crypto_box test (tests/box.c): Alice's for the
// machine, Bob's for the phone.
export const MACHINE_BOX_KEY = 'hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=';
export const PHONE_BOX_KEY = '3p7bfXt9wbTTW2HC7OQ1Nz+DQ8hbeGdNrfx+FG+IK08=';
export const PHONE_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
export const OTHER_PHONE_ID = '16fd2706-8baf-433b-82eb-8c7fada847da';
export const BY = { phoneId: PHONE_ID, name: 'Pixel 8 · Chrome' };

// E7: a registered credential (a real P-256 SPKI) and an assertion shaped like a browser's: its
// clientDataJSON carries the base64url SHA-256 of the challenge text of PHONE_MESSAGES'
// approval.respond; the signature bytes are not a real signature (parsing does not verify).
export const WEBAUTHN = {
  credentialId: 'AAsWISw3Qk1YY255hI-apQ',
  publicKey:
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEboUPlL5mxW/j4S2MUu/+KnZCIaEGyY+3ndSsob1U/6TW5X4o3XEkaW0wld0HGx3/rKTH/pieVtLnLgDu/2TlUQ==',
  alg: -7,
  rpId: 'dsh.example',
  origin: 'https://dsh.example',
};
export const PRESENCE = {
  credentialId: 'AAsWISw3Qk1YY255hI-apQ',
  authenticatorData: 'LQYQgA_ifMfZe9A7V3L45bj9Y0Rrp-r5b0n0Gld7zicFAAAABw',
  clientDataJSON:
    'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiai04Rkhval9LVWdBczR0S2xNUGJCdXBtemxfVjM4QzVaNk9oRWVSN3JKayIsIm9yaWdpbiI6Imh0dHBzOi8vZHNoLmV4YW1wbGUiLCJjcm9zc09yaWdpbiI6ZmFsc2V9',
  signature:
    'AyhNcpe84QYrUHWav-QJLlN4ncLnDDFWe6DF6g80WX6jyO0SN1yBpsvwFTpfhKnO8xg9Yoes0fYbQGWKr9T5HkNojbLX_A',
};

export const MACHINE_MESSAGES = {
  'machine.status': {
    v: 1,
    type: 'machine.status',
    ts: TS,
    machine: 'laptop',
    pluginVersion: '0.2.0',
    dshVersion: '1.4.0',
    allowedRoots: ['/home/me'],
    capabilities: {
      fullAccessDispatch: true,
      questionForwarding: true,
      approvalRules: true,
      approvalEdit: true,
      interrupt: true,
      phones: true,
      presence: 'risky',
    },
    instance: '0f6b3c1e-5d2a-4b7e-9c41-2a8d7e6f1b30',
    boxKey: MACHINE_BOX_KEY,
  },
  'session.snapshot': {
    v: 1,
    type: 'session.snapshot',
    ts: TS,
    sessions: [SESSION],
    open: { approvals: ['a-1'], questions: [] },
  },
  'session.update': { v: 1, type: 'session.update', ts: TS, session: SESSION },
  'approval.request': {
    v: 1,
    type: 'approval.request',
    ts: TS,
    approvalId: 'a-1',
    sessionId: 's-1',
    title: 'Run bash',
    detail: 'rm -rf build/',
    createdAt: TS,
    expiresAt: TS + 1_800_000,
    tool: 'Bash',
    rule: { key: 'run: rm -rf', scopes: ['session'] },
    editable: { label: 'Command', value: 'rm -rf build/' },
    presence: true,
    risk: { reason: 'recursive-delete' },
  },
  'approval.closed': {
    v: 1,
    type: 'approval.closed',
    ts: TS,
    approvalId: 'a-1',
    resolution: 'allow',
    edited: true,
    by: BY,
  },
  'dispatch.result': {
    v: 1,
    type: 'dispatch.result',
    ts: TS,
    requestId: 'r-1',
    ok: true,
    sessionId: 's-1',
    note: 'ran without worktree: not a git repo',
    reason: 'not-a-git-repo',
  },
  'question.request': {
    v: 1,
    type: 'question.request',
    ts: TS,
    questionId: 'qq-1',
    sessionId: 's-1',
    items: [QUESTION_ITEM],
    createdAt: TS,
    expiresAt: TS + 1_800_000,
  },
  'question.closed': {
    v: 1,
    type: 'question.closed',
    ts: TS,
    questionId: 'qq-1',
    resolution: 'phone',
    by: BY,
  },
  'turn.final': { v: 1, type: 'turn.final', ts: TS, sessionId: 's-1', ok: true, summary: 'Done.' },
  transcript: {
    v: 1,
    type: 'transcript',
    ts: TS,
    requestId: 'r-2',
    sessionId: 's-1',
    entries: [
      { seq: 1, role: 'user', text: 'hi', ts: TS },
      { seq: 2, role: 'assistant', text: 'hello', ts: TS, truncated: true },
    ],
    more: true,
  },
  error: {
    v: 1,
    type: 'error',
    ts: TS,
    message: 'worktree failed',
    context: 'dispatch',
    sessionId: 's-1',
    reason: 'worktree-failed',
  },
  rules: {
    v: 1,
    type: 'rules',
    ts: TS,
    requestId: 'r-8',
    rules: [
      {
        ruleId: 'rule-1',
        key: 'run: npm test',
        tool: 'run',
        scope: 'session',
        sessionId: 's-1',
        createdAt: TS,
        uses: 3,
      },
      {
        ruleId: 'rule-2',
        key: 'write: src/**',
        tool: 'write',
        scope: 'always',
        root: '/home/me/repo',
        createdAt: TS,
        uses: 0,
      },
    ],
  },
  phones: {
    v: 1,
    type: 'phones',
    ts: TS,
    requestId: 'r-13',
    phones: [
      { ...BY, firstSeen: TS, lastSeen: TS + 60_000, revoked: false, presence: true },
      {
        phoneId: OTHER_PHONE_ID,
        name: 'iPhone · Safari',
        firstSeen: TS,
        lastSeen: TS,
        revoked: true,
        presence: false,
      },
    ],
  },
  'room.rotate': {
    v: 1,
    type: 'room.rotate',
    ts: TS,
    phoneId: PHONE_ID,
    // nacl.box of {"secret":<32 × 0x07>,"relay":"wss://relay.example.com"} (nonce 24 × 0x09).
    box: 'CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJYTDdX8jG2+EDCb+1sY4H9IZCP7wiG/yJ7h1wsAAQrmbole60IlMOM/6h0952w3Z/jgHABlfTjEI0fuJ+bDMtyEga6VD478msBrcAh7FPv2+gc8VCuLhDSI7ofQ3tKrA63oI6tPG7bExs1w==',
  },
} as const;

export const PHONE_MESSAGES = {
  'sessions.get': { v: 1, type: 'sessions.get', ts: TS, phoneId: PHONE_ID },
  'approval.respond': {
    v: 1,
    type: 'approval.respond',
    ts: TS,
    requestId: 'r-3',
    approvalId: 'a-1',
    decision: 'allow',
    phoneId: PHONE_ID,
    scope: 'once',
    edited: 'rm -rf build/tmp/',
    presence: PRESENCE,
  },
  'dispatch.request': {
    v: 1,
    type: 'dispatch.request',
    ts: TS,
    requestId: 'r-4',
    prompt: 'Fix the flaky test',
    cwd: '/home/me/repo',
    worktree: true,
    access: 'full',
    phoneId: PHONE_ID,
    presence: PRESENCE,
  },
  'transcript.get': {
    v: 1,
    type: 'transcript.get',
    ts: TS,
    requestId: 'r-5',
    sessionId: 's-1',
    before: 10,
    phoneId: PHONE_ID,
  },
  'session.message': {
    v: 1,
    type: 'session.message',
    ts: TS,
    requestId: 'r-6',
    sessionId: 's-1',
    text: 'also run lint',
    phoneId: PHONE_ID,
  },
  'question.respond': {
    v: 1,
    type: 'question.respond',
    ts: TS,
    requestId: 'r-7',
    questionId: 'qq-1',
    answers: [{ itemId: 'q1', optionIds: ['pg'], freeText: 'v16 please' }],
    phoneId: PHONE_ID,
  },
  'rules.get': { v: 1, type: 'rules.get', ts: TS, requestId: 'r-9', phoneId: PHONE_ID },
  'rule.revoke': {
    v: 1,
    type: 'rule.revoke',
    ts: TS,
    requestId: 'r-10',
    ruleId: 'rule-1',
    phoneId: PHONE_ID,
  },
  'session.interrupt': {
    v: 1,
    type: 'session.interrupt',
    ts: TS,
    requestId: 'r-11',
    sessionId: 's-1',
    phoneId: PHONE_ID,
  },
  'phone.register': {
    v: 1,
    type: 'phone.register',
    ts: TS,
    requestId: 'r-13',
    phoneId: PHONE_ID,
    name: 'Pixel 8 · Chrome',
    boxKey: PHONE_BOX_KEY,
    webauthn: WEBAUTHN,
  },
  'phone.revoke': {
    v: 1,
    type: 'phone.revoke',
    ts: TS,
    requestId: 'r-12',
    phoneId: OTHER_PHONE_ID,
  },
} as const;

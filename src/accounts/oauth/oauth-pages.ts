/**
 * The authorization server's pages: server-rendered HTML, no script. Everything shown is escaped, the client's
 * name and redirect host included (a client registers itself: its metadata is the caller's text).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=/]/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
}

export interface AppDescription {
  readonly clientName: string;
  readonly clientId: string;
  readonly redirectHost: string;
  readonly scope: string;
}

function describeApp(app: AppDescription): string {
  return `<p><strong>${escapeHtml(app.clientName)}</strong> (client <code>${escapeHtml(app.clientId)}</code>, returning to
<strong>${escapeHtml(app.redirectHost)}</strong>) asks to use your account.</p>`;
}

export function signInPage(action: string, app: AppDescription, problem?: string): string {
  return page(
    'Sign in',
    `${describeApp(app)}
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<label>Email <input type="email" name="email" autocomplete="username" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(action: string, csrfToken: string, app: AppDescription): string {
  return page(
    'Authorize this app?',
    `${describeApp(app)}
<p>Scope <code>${escapeHtml(app.scope)}</code>: it may run searches and enrichment on the personal API for you,
billed in credits to your account, as your own requests are. It gets no access to any organization, and cannot
manage your account, keys or tokens. You can revoke it at any time under your authorized apps.</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">
<button type="submit" name="decision" value="approve">Authorize</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function refusalPage(action: string, csrfToken: string, app: AppDescription, reason: string): string {
  return page(
    'This app cannot be authorized',
    `${describeApp(app)}
<p role="alert">${escapeHtml(reason)}</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">
<button type="submit" name="decision" value="deny">Return to the app</button>
</form>`,
  );
}

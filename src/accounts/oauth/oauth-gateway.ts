/**
 * The authorization server's HTTP entry (ADR 106): requests under `/oauth/` and the RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server` are taken over before fastify parses any body (the app itself takes
 * JSON only; OAuth endpoints take forms). The sign-in and consent pages are served here on the browser session;
 * everything else goes to oidc-provider.
 */
import type { ServerResponse } from 'node:http';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { CSRF_COOKIE, parseCookies, SESSION_COOKIE, sessionCookies } from '../../platform/auth/cookies.js';
import { CSRF_HEADER, csrfTokenFor, csrfTokenMatches } from '../../platform/auth/csrf.js';
import type { ServiceSecrets } from '../../platform/auth/secrets.js';
import type { SessionStore } from '../../platform/auth/sessions.js';
import type { AppConfig } from '../../platform/config/app-config.js';
import { statusOf } from '../../platform/errors/error-codes.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { commandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { publicOrigin } from '../../platform/http/public-origin.js';
import type { RawHttpRoutes } from '../../platform/http/raw-routes.js';
import { sessionReference } from '../../platform/auth/credential-reference.js';
import { SignInWithPassword } from '../commands/account.commands.js';
import { AuthorizeOAuthApp } from '../commands/oauth.commands.js';
import { accessTokenDecision } from '../domain/entitlements.js';
import { OAUTH_SCOPE } from '../domain/oauth-grant.js';
import type { AccountDirectory } from '../queries/account-directory.js';
import {
  INTERACTION_PREFIX,
  OAUTH_PREFIX,
  REQUEST_ID,
  type AuthorizationServer,
  type RequestWithId,
} from './authorization-server.js';
import {
  consentPage,
  escapeHtml,
  page,
  refusalPage,
  signInPage,
  type AppDescription,
} from './oauth-pages.js';

export const AUTHORIZATION_SERVER_METADATA = '/.well-known/oauth-authorization-server';
const MAX_FORM_BYTES = 8 * 1024;
const UID = /^[A-Za-z0-9_-]{1,128}$/;

export class OAuthGateway implements RawHttpRoutes {
  constructor(
    private readonly server: AuthorizationServer,
    private readonly ports: {
      readonly config: AppConfig;
      readonly commands: CommandBus;
      readonly sessions: SessionStore;
      readonly secrets: ServiceSecrets;
      readonly accounts: AccountDirectory;
    },
  ) {}

  matches(url: string): boolean {
    const path = url.split('?', 1)[0] ?? '';
    return path.startsWith(OAUTH_PREFIX) || path === AUTHORIZATION_SERVER_METADATA;
  }

  async serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    const raw = request.raw as RequestWithId;
    const response = reply.raw;
    raw[REQUEST_ID] = String(request.id);
    response.setHeader('x-request-id', String(request.id));
    try {
      const provider = await this.server.providerFor(publicOrigin(this.ports.config, request));
      const [path = '', query] = (raw.url ?? '').split('?', 2);
      if (path.startsWith(INTERACTION_PREFIX)) {
        await this.interaction(provider, request, response, path.slice(INTERACTION_PREFIX.length));
        return;
      }
      // RFC 8414 metadata: oidc-provider's discovery document, at the address RFC 8414 names for an origin issuer.
      if (path === AUTHORIZATION_SERVER_METADATA)
        raw.url = `/.well-known/openid-configuration${query ? `?${query}` : ''}`;
      await (provider.callback() as unknown as (req: unknown, res: unknown) => Promise<void>)(raw, response);
    } catch (error) {
      this.fail(response, request, error);
    }
  }

  private async interaction(
    provider: Provider,
    request: FastifyRequest,
    response: ServerResponse,
    rest: string,
  ) {
    const [uid = '', step = '', extra] = rest.split('/');
    if (!UID.test(uid) || extra !== undefined || !['', 'login', 'consent'].includes(step)) {
      throw new ServiceError('not_found', 'no such page');
    }
    const method = request.raw.method ?? 'GET';
    if ((step === '' && method !== 'GET') || (step !== '' && method !== 'POST')) {
      throw new ServiceError('not_found', 'no such page');
    }
    const details = await provider.interactionDetails(request.raw, response).catch(() => {
      throw new ServiceError(
        'unauthenticated',
        'this authorization request expired or belongs to another browser; start again from the app',
      );
    });
    if (details.uid !== uid) throw new ServiceError('not_found', 'no such authorization request');
    const app = await this.describe(provider, details.params);
    const base = `${INTERACTION_PREFIX}${uid}`;
    const cookies = parseCookies(request.headers.cookie);
    const sessionId = cookies[SESSION_COOKIE];
    const session = sessionId ? await this.ports.sessions.resolve(sessionId) : null;

    if (step === 'login') {
      const form = await readForm(request);
      try {
        const signedIn = await this.ports.commands.execute(
          new SignInWithPassword(
            form.get('email') ?? '',
            form.get('password') ?? '',
            request.ip,
            String(request.headers['user-agent'] ?? ''),
            sessionId,
            String(request.id),
          ),
        );
        response.setHeader(
          'set-cookie',
          sessionCookies(signedIn.sessionId, signedIn.csrfToken, signedIn.maxAgeSeconds),
        );
        redirect(response, base);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        html(response, statusOf(error.code), signInPage(`${base}/login`, app, error.message));
      }
      return;
    }
    if (!sessionId || !session) {
      html(response, 200, signInPage(`${base}/login`, app));
      return;
    }
    const csrfToken = csrfTokenFor(sessionId, this.ports.secrets.csrfSecret);
    const refusal = await this.refusal(session.accountId, session.organizationId, details.params);

    if (step === '') {
      if (refusal)
        html(
          response,
          statusOf(refusal.code),
          refusalPage(`${base}/consent`, csrfToken, app, refusal.message),
        );
      else html(response, 200, consentPage(`${base}/consent`, csrfToken, app));
      return;
    }
    // The consent: an unsafe request on the browser session, so CSRF-checked (the form field stands in for the header).
    const form = await readForm(request);
    const header = request.headers[CSRF_HEADER];
    const given = form.get('csrf_token') ?? (Array.isArray(header) ? header[0] : header);
    if (!csrfTokenMatches(sessionId, given, cookies[CSRF_COOKIE], this.ports.secrets.csrfSecret)) {
      throw new ServiceError('csrf_failed', `send the ${CSRF_COOKIE} cookie value as csrf_token`);
    }
    if (form.get('decision') !== 'approve' || refusal) {
      const returnTo = await provider.interactionResult(request.raw, response, {
        error: 'access_denied',
        error_description: refusal?.message ?? 'the account denied the authorization',
      });
      redirect(response, returnTo);
      return;
    }
    const accountId = session.accountId;
    const resource = resourceOf(details.params);
    const grant = new provider.Grant({ accountId, clientId: app.clientId });
    // The scope is the provider's (listed in its metadata) and the resource's (carried by the token).
    grant.addOIDCScope(OAUTH_SCOPE);
    grant.addResourceScope(resource, OAUTH_SCOPE);
    const self = `account:${accountId}` as const;
    // The grant's id exists once saved; a consent the decider refuses leaves no grant behind.
    const grantId = await grant.save();
    try {
      await this.ports.commands.execute(
        new AuthorizeOAuthApp(
          {
            accountId,
            grantId,
            clientId: app.clientId,
            clientName: app.clientName,
            redirectHost: app.redirectHost,
            scopes: [OAUTH_SCOPE],
            resource,
          },
          commandEnvelope({
            actor: self,
            payer: self,
            credential: `oauth_client:${app.clientId}`,
            surface: 'session',
            correlationId: String(request.id),
            causationId: String(request.id),
            requestId: String(request.id),
            reason: `consent on session ${sessionReference(sessionId)}`,
          }),
        ),
      );
    } catch (error) {
      await grant.destroy();
      throw error;
    }
    const returnTo = await provider.interactionResult(request.raw, response, {
      login: { accountId },
      consent: { grantId },
    });
    redirect(response, returnTo);
  }

  /** Why this account cannot authorize the app now, or null (Authentication 2; personal context only; scope). */
  private async refusal(
    accountId: string,
    organizationId: string | null,
    params: Record<string, unknown>,
  ): Promise<ServiceError | null> {
    if (organizationId !== null) {
      return new ServiceError(
        'organization_restricted',
        'this session works in an organization; an app gets personal access only (no organization access): switch to your personal context and try again',
      );
    }
    const scopes = String(params.scope ?? '').split(' ');
    if (!scopes.includes(OAUTH_SCOPE)) {
      return new ServiceError('insufficient_scope', `the app must ask for the ${OAUTH_SCOPE} scope`);
    }
    const account = await this.ports.accounts.account(accountId);
    if (!account) return new ServiceError('unauthenticated', 'the session belongs to no account');
    const decision = accessTokenDecision(
      this.ports.accounts.plan(account),
      await this.ports.accounts.purchasedBalance(accountId),
    );
    return decision.allowed
      ? null
      : new ServiceError('entitlement_required', decision.message, decision.details);
  }

  private async describe(provider: Provider, params: Record<string, unknown>): Promise<AppDescription> {
    const clientId = String(params.client_id ?? '');
    const client = await provider.Client.find(clientId);
    if (!client) throw new ServiceError('not_found', 'the app is not registered');
    const redirectHost = hostOf(String(params.redirect_uri ?? client.redirectUris[0] ?? ''));
    return {
      clientId,
      clientName: client.clientName ?? clientId,
      redirectHost: redirectHost || '(none)',
      scope: OAUTH_SCOPE,
    };
  }

  private fail(response: ServerResponse, request: FastifyRequest, error: unknown): void {
    if (response.headersSent) {
      response.end();
      return;
    }
    const known = error instanceof ServiceError ? error : null;
    if (!known) request.log.error({ err: error }, 'the OAuth gateway failed');
    const code = known?.code ?? 'internal_error';
    const message = known?.message ?? 'the authorization server failed';
    const wantsHtml = String(request.headers.accept ?? '').includes('text/html');
    if (wantsHtml) {
      html(response, statusOf(code), page('Authorization failed', `<p>${escapeHtml(message)}</p>`));
      return;
    }
    response.statusCode = statusOf(code);
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.end(JSON.stringify({ code, message, request_id: String(request.id) }));
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unreadable)';
  }
}

function resourceOf(params: Record<string, unknown>): string {
  const resource = Array.isArray(params.resource) ? params.resource[0] : params.resource;
  return typeof resource === 'string' && resource.length > 0 ? resource : '';
}

function html(response: ServerResponse, status: number, body: string): void {
  response.statusCode = status;
  response.setHeader('content-type', 'text/html; charset=utf-8');
  response.setHeader('cache-control', 'no-store');
  response.setHeader('x-frame-options', 'DENY');
  response.setHeader('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
  response.end(body);
}

function redirect(response: ServerResponse, location: string): void {
  response.statusCode = 303;
  response.setHeader('location', location);
  response.setHeader('cache-control', 'no-store');
  response.end();
}

/** A urlencoded form of at most 8 KiB, read from the raw request (fastify never parsed it). */
async function readForm(request: FastifyRequest): Promise<URLSearchParams> {
  const type = String(request.headers['content-type'] ?? '');
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    throw new ServiceError('unsupported_media_type', 'send the form as application/x-www-form-urlencoded');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES)
      throw new ServiceError('payload_too_large', `a form has at most ${MAX_FORM_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

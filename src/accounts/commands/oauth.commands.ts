/** Commands of the OAuth authorization server (ADR 106, 107): each decided on its grant's stream. */
import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { OAuthGrantRevocationReason } from '../domain/oauth-grant.js';

/** The account consented on its browser session: the grant exists from now on. */
export class AuthorizeOAuthApp extends Command<void> {
  constructor(
    readonly grant: {
      readonly accountId: string;
      readonly grantId: string;
      readonly clientId: string;
      readonly clientName: string;
      readonly redirectHost: string;
      readonly scopes: readonly string[];
      readonly resource: string;
    },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** The token endpoint issues an access token under a live grant (by code or refresh); refused otherwise. */
export class IssueOAuthAccessToken extends Command<void> {
  constructor(
    readonly grantId: string,
    readonly token: {
      readonly tokenId: string;
      readonly clientId: string;
      readonly issuedAt: Date;
      readonly expiresAt: Date;
      readonly scopes: readonly string[];
      readonly grantType: 'authorization_code' | 'refresh_token';
    },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** A refresh token or code came back a second time: recorded, and the grant revoked with every token. */
export class DetectOAuthReuse extends Command<void> {
  constructor(
    readonly grantId: string,
    readonly artifact: 'refresh_token' | 'authorization_code',
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Ends a grant: its tokens are refused (401 token_revoked) once this answers. */
export class RevokeOAuthGrant extends Command<{ revoked: boolean }> {
  constructor(
    readonly grantId: string,
    readonly reason: OAuthGrantRevocationReason,
    readonly envelope: CommandEnvelope,
    /** When given, the grant must be this account's; another's is not found. */
    readonly accountId?: string,
  ) {
    super();
  }
}

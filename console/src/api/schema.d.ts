// Generated from the service's OpenAPI document by `npm run console:types`; do not edit.
export interface paths {
    "/.well-known/event-log-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The public keys that verify the event log's signed checkpoints: the active one and the retired ones */
        get: operations["EventLogKeyController_key"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Protected resource metadata (RFC 9728) of the personal API */
        get: operations["ProtectedResourceController_api"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Protected resource metadata (RFC 9728) of the MCP endpoint */
        get: operations["ProtectedResourceController_mcp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The OAuth apps the signed-in account authorized and has not revoked, newest first */
        get: operations["OAuthAppsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/apps/{clientId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an app: every grant of it ends, its access tokens are refused (401 token_revoked) and its refresh tokens deleted from when this answers */
        delete: operations["OAuthAppsController_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Monthly allocation, usage, purchased balance and plan of the signed-in account */
        get: operations["CreditsController_state"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/credits/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Credits spent this cycle by category; usage_mcp is the MCP subset of usage */
        get: operations["CreditsController_usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Keys of the signed-in account (never the secret) */
        get: operations["ApiKeysController_list"];
        put?: never;
        /** Issue a personal API key; the key is in this response only */
        post: operations["ApiKeysController_issue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key; it stops working at once */
        delete: operations["ApiKeysController_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with email and password; sets __Host-ps and __Host-pc */
        post: operations["AuthSessionController_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the browser session */
        post: operations["AuthSessionController_logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in account and the organization the session is restricted to */
        get: operations["AuthSessionController_current"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/sso/{orgId}/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The provider returns here; signs the staff member in to the organization */
        get: operations["SsoSignInController_callback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/sso/{orgId}/recovery": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The owner's sign-in when the provider is down: email, password and the recovery code (one use) */
        post: operations["SsoSignInController_recovery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/sso/{orgId}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Start staff sign-in: redirects to the organization's OpenID Connect provider */
        get: operations["SsoSignInController_start"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in account's access tokens that have not expired, newest first (at most 1000; never the token) */
        get: operations["AccessTokensController_list"];
        put?: never;
        /** Create an access token (JWT); a Free account holding only its monthly allocation is refused */
        post: operations["AccessTokensController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/auth/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an access token: refused (401 token_revoked) from when this answers; revoking it again is a 204 too */
        delete: operations["AccessTokensController_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/caller-ip": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The address this request came from, as the service saw it */
        get: operations["CallerIpController_callerIp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Credit state of the account that owns the key or token */
        get: operations["PersonalCreditsController_state"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/{dataset}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Single-dataset search (hosts, dns, vhosts, whois): rows or facet counts */
        post: operations["PersonalSearchController_dataset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/enrich/badges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Contextual badges for up to 50 result items; no search charge */
        post: operations["PersonalEnrichmentController_badges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/enrich/vulnerabilities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** CVE/KEV findings for a vulnerability_ref or 1 to 8 CPE names; no search charge; asset not contacted */
        post: operations["PersonalEnrichmentController_vulnerabilities"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Unified search over hosts, dns, vhosts and whois (SSE unless stream is false) */
        post: operations["PersonalSearchController_search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/search/fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Searchable vocabulary; no charge; a listed field may need a higher entitlement */
        get: operations["PersonalSearchController_fields"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/search/more": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One dataset's further page (page 2 or more), priced by depth */
        post: operations["PersonalSearchController_more"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/data/search/more/quote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What search/more would charge for that page (depth pricing), free: nothing is reserved or read */
        post: operations["PersonalSearchController_quote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All of the caller's exports, newest first (each item is the export job) */
        get: operations["ExportsController_list"];
        put?: never;
        post?: never;
        /** Delete every finished export of the caller and cancel the running ones: deleted_count */
        delete: operations["ExportsController_removeAll"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/exports/{exportId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Cancel a pending or processing export (a running one is charged for rows already written), or delete a completed, failed or cancelled one with its file */
        delete: operations["ExportsController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/exports/{exportId}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The file once completed. With Accept-Encoding: gzip the stored gzip bytes are sent (Content-Encoding: gzip); otherwise they are decompressed on the fly. 409 export_not_ready before completion, 410 export_expired after. */
        get: operations["ExportsController_download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/exports/{exportId}/poll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The export job: status, rows, credits, sizes, truncation, expiry */
        get: operations["ExportsController_poll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/exports/{searchType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an export (json: one JSON document per line; csv: RFC 4180 with header; txt: one primary value per line). Costs ceil(rows / 100) credits on rows written; truncated to what the balance and quota cover. */
        post: operations["ExportsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/common/exports/{searchType}/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Estimate an export (free): matching rows, results quota before and after, partial limit, file size */
        post: operations["ExportsController_estimate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/{dataset}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Single-dataset search from the browser */
        post: operations["BrowserSearchController_dataset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/enrich/badges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Badge enrichment from the browser */
        post: operations["BrowserEnrichmentController_badges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/enrich/vulnerabilities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Vulnerability enrichment from the browser */
        post: operations["BrowserEnrichmentController_vulnerabilities"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All of the caller's exports, newest first (each item is the export job) */
        get: operations["BrowserExportsController_list"];
        put?: never;
        post?: never;
        /** Delete every finished export of the caller and cancel the running ones: deleted_count */
        delete: operations["BrowserExportsController_removeAll"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/exports/{exportId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Cancel a pending or processing export (a running one is charged for rows already written), or delete a completed, failed or cancelled one with its file */
        delete: operations["BrowserExportsController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/exports/{exportId}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The file once completed. With Accept-Encoding: gzip the stored gzip bytes are sent (Content-Encoding: gzip); otherwise they are decompressed on the fly. 409 export_not_ready before completion, 410 export_expired after. */
        get: operations["BrowserExportsController_download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/exports/{exportId}/poll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The export job: status, rows, credits, sizes, truncation, expiry */
        get: operations["BrowserExportsController_poll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/exports/{searchType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an export (json: one JSON document per line; csv: RFC 4180 with header; txt: one primary value per line). Costs ceil(rows / 100) credits on rows written; truncated to what the balance and quota cover. */
        post: operations["BrowserExportsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/exports/{searchType}/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Estimate an export (free): matching rows, results quota before and after, partial limit, file size */
        post: operations["BrowserExportsController_estimate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Unified search from the browser (SSE unless stream is false) */
        post: operations["BrowserSearchController_search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/search/fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Searchable vocabulary */
        get: operations["BrowserSearchController_fields"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/search/more": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One dataset's further page from the browser */
        post: operations["BrowserSearchController_more"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/data/search/more/quote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The price of one dataset's further page, before paying (free) */
        post: operations["BrowserSearchController_quote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/operator/projections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Each projection's generation, position, lag (events behind the log head), state and rebuild progress */
        get: operations["OperatorProjectionsController_projections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's organizations (only the switched one for an organization session) */
        get: operations["OrganizationsController_list"];
        put?: never;
        /** Create an organization (trial with a verified domain, or subscription) */
        post: operations["OrganizationsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Overview: status, billing action, role, spaces; starts no collection, spends nothing */
        get: operations["OrganizationsController_overview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Rename (never a new trial) */
        patch: operations["OrganizationsController_rename"];
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organization's audit log, oldest first, paged by cursor: who did what, when, on whose behalf and why */
        get: operations["OrganizationsController_log"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/billing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Choose the paid plan checkout completes (owner only) */
        put: operations["OrganizationsController_billing"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/cases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Cases of the spaces the caller reaches (historical General research ones included) */
        get: operations["OrganizationsController_cases"];
        put?: never;
        /** Open a case in a client space (never in General research) */
        post: operations["OrganizationsController_openCase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/cases/{caseId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A case with its evidence (external users see client-visible evidence only) */
        get: operations["OrganizationsController_caseDetail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/cases/{caseId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Archive a case (it stays reviewable; evidence goes to another case) */
        post: operations["OrganizationsController_archiveCase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One space */
        get: operations["OrganizationsController_space"];
        put?: never;
        post?: never;
        /** Delete a client (exact name as confirmation, If-Match): access ends now, erasure after 7 days */
        delete: operations["ExposureController_delete"];
        options?: never;
        head?: never;
        /** Rename, archive (pauses work, stops schedules, revokes shares) or restore; If-Match */
        patch: operations["OrganizationsController_updateSpace"];
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Inventory from stored observations: fixed pages of 100 (offset 0 to 50,000), group_by=host, filter */
        get: operations["ExposureController_inventory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/assets/{assetKey}/enrich": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Catalogue association for a stored observation (no request reaches the asset) */
        post: operations["ExposureController_enrich"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/controls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Up to 100 historical control records (imported by operators), optional asset filter */
        get: operations["ExposureController_controls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Attributed history, 50 newest per page (offset 0 to 100,000), optional subject */
        get: operations["ExposureController_history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/monitoring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Activate or stop scheduled observation watches (owner or administrator); optional If-Match */
        put: operations["ExposureReportingController_setMonitoring"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The scope email preference (owner or administrator) */
        get: operations["ExposureReportingController_preference"];
        /** Save the email preference (owner or administrator; body version); confirms no delivery */
        put: operations["ExposureReportingController_savePreference"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Up to 100 frozen report summaries, newest first */
        get: operations["ExposureReportingController_list"];
        put?: never;
        /** Freeze the current view (at most 100 per scope, 16 MiB); runs no search, scan, guest link or email */
        post: operations["ExposureReportingController_freeze"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/reports/{reportId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The saved document, under current permissions; never today’s inventory */
        get: operations["ExposureReportingController_document"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refresh from stored observations with a stable key (16 to 64 characters); cadence, quota, billing */
        post: operations["ExposureController_run"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/subjects/{subjectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Record an attributed decision on a subject (body version, not If-Match) */
        patch: operations["ExposureController_decide"];
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/exposure/timezone": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Change the scope's IANA timezone (managers; version in the body) */
        put: operations["ExposureController_timezone"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/monitoring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Activate or stop scheduled observation watches (collects only after activation) */
        put: operations["OrganizationsController_monitoring"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/published": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The space's explicitly published view (what external clients keep) */
        get: operations["OrganizationsController_published"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restore a deleted client before erase_after (If-Match): it returns archived */
        post: operations["ExposureController_restore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/shares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a guest share link of the space */
        post: operations["OrganizationsController_share"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/{clientId}/shares/{shareId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a guest share link */
        delete: operations["OrganizationsController_revokeShare"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/clients/deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Deleted clients still recoverable (managers): up to 100, with erase_after */
        get: operations["ExposureController_deleted"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/comparisons": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Prepare a report comparison from selected evidence */
        post: operations["OrganizationsController_prepareComparison"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/comparisons/{comparisonId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A report comparison (external clients: once published) */
        get: operations["OrganizationsController_comparison"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/comparisons/{comparisonId}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Publish a comparison to the client's space view */
        post: operations["OrganizationsController_publishComparison"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The selected space and case of this session */
        get: operations["OrganizationsController_context"];
        /** Select a space (and optionally a case of it); changing space clears the case */
        put: operations["OrganizationsController_select"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Managers: the shared balance; other members: their permitted envelope */
        get: operations["OrganizationsController_credits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/evidence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Save up to 20 records of a completed search into the selected case; runs no search */
        post: operations["OrganizationsController_saveEvidence"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/evidence/{evidenceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One saved evidence item */
        get: operations["OrganizationsController_evidence"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/exposure/scopes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an exposure scope (owner or administrator); capacity billing starts an initial refresh */
        post: operations["ExposureController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Invite a member by email with a role, spaces and (external users) a portion */
        post: operations["OrganizationsController_invite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/invitations/{invitationId}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept an invitation sent to this account */
        post: operations["OrganizationsController_accept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Members (and, for managers, invitations, assignments and portions) */
        get: operations["OrganizationsController_members"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/members/{accountId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a member: their access ends at once */
        delete: operations["OrganizationsController_removeMember"];
        options?: never;
        head?: never;
        /** Change a member's role or an external user's portion */
        patch: operations["OrganizationsController_updateMember"];
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/members/{accountId}/spaces/{spaceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Assign a space to a member */
        put: operations["OrganizationsController_assign"];
        post?: never;
        /** Remove a space assignment: that space's access ends at once */
        delete: operations["OrganizationsController_unassign"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/ownership-transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Offer the ownership to a staff member (owner only); the recipient must accept */
        post: operations["OrganizationsController_offerOwnership"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/ownership-transfer/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept the ownership offered to you */
        post: operations["OrganizationsController_acceptOwnership"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/ownership-transfer/decline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Decline the ownership offered to you */
        post: operations["OrganizationsController_declineOwnership"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/review-queue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Observations queued for review across every accessible space (internal members) */
        get: operations["OrganizationsController_reviewQueue"];
        put?: never;
        /** Queue an observation of a completed search for review */
        post: operations["OrganizationsController_addReviewItem"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/review-queue/{itemId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Assign, give a due date, tie to a source (evidence) in a case */
        patch: operations["OrganizationsController_updateReviewItem"];
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/spaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Spaces the caller reaches (General research for staff, assigned clients) */
        get: operations["OrganizationsController_spaces"];
        put?: never;
        /** Create a client or asset scope space with an optional credit_limit */
        post: operations["OrganizationsController_createSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Single sign-on settings: provider, recovery code state, enforcement (owner) */
        get: operations["SsoSettingsController_settings"];
        /** Configure the OpenID Connect provider (issuer, client id, client secret) (owner) */
        put: operations["SsoSettingsController_configure"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/sso/enforcement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Turn staff SSO enforcement on or off (owner); on needs a tested and saved recovery code */
        put: operations["SsoSettingsController_setEnforcement"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/sso/recovery-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a new recovery code; shown once, replaces the previous one (owner) */
        post: operations["SsoSettingsController_issueRecoveryCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/sso/recovery-code/saved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm the recovery code is saved somewhere safe (owner) */
        post: operations["SsoSettingsController_acknowledgeRecoveryCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/sso/recovery-code/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Prove the saved recovery code is the current one (does not use it up) (owner) */
        post: operations["SsoSettingsController_testRecoveryCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/switch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restrict this session to the organization (staff start in General research) */
        post: operations["OrganizationsController_switchTo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/{orgId}/verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check the DNS TXT record and start the trial (owner) */
        post: operations["OrganizationsController_verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/organizations/creation-preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether this account may create an organization, and the credits it would move */
        get: operations["OrganizationsController_preview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: operations["HealthController_live"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Storage is reachable and every projection follows the log */
        get: operations["HealthController_ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AcceptedInvitation: components["schemas"]["Organization"] | components["schemas"]["SsoSignInRequired"];
        AccessToken: {
            /** @description a JWT for Authorization: Bearer */
            access_token: string;
            /** Format: date-time */
            expires_at: string;
            /** @description seconds */
            expires_in: number;
            /** @description space-separated scopes */
            scope: string;
            /** @enum {string} */
            token_type: "Bearer";
        };
        AccessTokenSummary: {
            /** @enum {string} */
            client: "api" | "mcp";
            /** Format: date-time */
            expires_at: string;
            /** @description the token id (its jti): what DELETE /api/v2/auth/tokens/{tokenId} takes */
            id: string;
            /** Format: date-time */
            issued_at: string;
            /**
             * Format: date-time
             * @description when it stopped working: revoked, or the password changed after it was issued
             */
            revoked_at: string | null;
            scopes: string[];
        };
        AddReviewItemBody: {
            record: components["schemas"]["RecordRefBody"];
            /** Format: uuid */
            search_id: string;
        };
        ApiKey: {
            id: string;
            /** Format: date-time */
            issued_at: string;
            label: string;
            /** @description the start of the key, to recognise it */
            prefix: string;
            /** Format: date-time */
            revoked_at: string | null;
        };
        AssetEnrichment: {
            asset_key: string;
            catalogue_version: number;
            /** @description the service coverage: state, reasons, eligible */
            coverage: {
                [key: string]: unknown;
            } | null;
            findings: components["schemas"]["Finding"][];
            notice: string;
            observation_id: string;
            /** Format: date-time */
            observation_last_seen: string | null;
            /** @enum {string} */
            result_state: "kev" | "matched" | "no_match" | "indeterminate";
            subject: components["schemas"]["Subject"];
        };
        AuthorizedApp: {
            /**
             * Format: date-time
             * @description the latest consent still in force
             */
            authorized_at: string;
            client_id: string;
            /** @description as the app registered it */
            client_name: string;
            /** Format: date-time */
            last_token_at: string | null;
            /** @description where the app received the authorization */
            redirect_host: string;
            scopes: string[];
        };
        BadgeEnrichment: {
            catalogue_version: number;
            /**
             * Format: date-time
             * @description when the catalogue in this version was established
             */
            evaluated_at: string | null;
            items: {
                badges: {
                    /** @description what the badge is based on */
                    detail: {
                        [key: string]: unknown;
                    };
                    /** @description known_exploited, cve_count, shared_edge, certificate_expired, … */
                    id: string;
                    label: string;
                    /** @enum {string} */
                    level: "critical" | "warning" | "info";
                    search?: {
                        datasets: ("hosts" | "dns" | "vhosts" | "whois")[];
                        field: string;
                        /** @enum {string} */
                        match: "exact" | "prefix" | "suffix";
                        /** @description the indexed criterion behind the badge, as a query */
                        query: string;
                        value: string;
                    };
                }[];
                key: string;
                /**
                 * @description unavailable never reads as no badges
                 * @enum {string}
                 */
                status: "ok" | "unavailable";
                /** @enum {string} */
                type: "host" | "domain" | "ip" | "cert" | "whois" | "dns";
                value: string;
            }[];
            kev_source: {
                catalog_version: string | null;
                count: number;
                date_released: string | null;
                title: string | null;
            } | null;
        };
        BillingBody: {
            /** @enum {string} */
            plan: "teams" | "business";
        };
        CallerIp: {
            /** @description the address this request came from, as the service saw it */
            ip: string;
        };
        Case: {
            evidence: components["schemas"]["Evidence"][];
            evidence_count: number;
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            opened_at: string;
            opened_by: string | null;
            /** Format: uuid */
            space_id: string;
            /** @enum {string} */
            status: "open" | "archived";
            title: string;
        };
        CaseList: {
            cases: {
                evidence_count: number;
                /** Format: uuid */
                id: string;
                /** Format: date-time */
                opened_at: string;
                opened_by: string | null;
                /** Format: uuid */
                space_id: string;
                /** @enum {string} */
                status: "open" | "archived";
                title: string;
            }[];
        };
        Comparison: {
            differing_fields: string[];
            evidence: {
                [key: string]: unknown;
            }[];
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            prepared_at: string;
            published: boolean;
            rows: {
                [key: string]: unknown;
            }[];
            /** Format: uuid */
            space_id: string;
            title: string;
        };
        ConfigureSsoBody: {
            /** @example exposure-research */
            client_id: string;
            /** @description Required the first time; omitted keeps the stored one. Stored sealed, never shown again. */
            client_secret?: string;
            /**
             * @description The OpenID Connect issuer (https)
             * @example https://login.example.com
             */
            issuer: string;
        };
        ControlRecords: {
            /** @description historical records imported by operators; fields: not shown */
            controls: {
                asset: string;
                id: string;
                /** Format: date-time */
                imported_at: string;
                kind: string;
                outcome: string | null;
                /** Format: date-time */
                performed_at: string;
                performed_by: string | null;
                source: string | null;
                title: string;
            }[];
            /** @enum {boolean} */
            historical: true;
            notice: string;
        };
        CreateAccessTokenBody: {
            /**
             * @description mcp marks usage through an MCP client (counted in usage_mcp)
             * @default api
             * @enum {string}
             */
            client: "api" | "mcp";
            /** @default 3600 */
            expires_in: number;
            /**
             * @default [
             *       "service.read"
             *     ]
             */
            scopes: "service.read"[];
        };
        CreatedId: {
            /** Format: uuid */
            id: string;
        };
        CreateExposureScopeBody: {
            /** @description up to 16 IP addresses */
            addresses?: (string)[];
            /** @description ignored under capacity billing; 6 to 1,000,000 under legacy credit billing */
            credit_limit?: number | null;
            /**
             * Format: hostname
             * @description a domain name (at least two labels)
             * @example example.com
             */
            domain: string;
            /** @description scheduled observation watches (explicit activation) */
            monitoring: boolean;
            /** @description not blank (trimmed) */
            name: string;
            /**
             * @description IANA timezone name
             * @example Europe/Paris
             */
            timezone: string;
        };
        CreateOrganizationBody: {
            /**
             * @description Explicit acceptance of the account transition (rule 6)
             * @enum {boolean}
             */
            accept_account_transition: true;
            /**
             * Format: hostname
             * @description Trial: the business domain proven by a DNS TXT record
             */
            domain?: string;
            /** @description transfer_credits as the preview showed it */
            expected_transfer: number;
            /** @description not blank (trimmed) */
            name: string;
            /**
             * @default trial
             * @enum {string}
             */
            start: "trial" | "subscription";
        };
        CreateSpaceBody: {
            credit_limit?: number | null;
            /**
             * @default client
             * @enum {string}
             */
            kind: "client" | "asset_scope";
            /** @default false */
            monitoring: boolean;
            /** @description not blank (trimmed) */
            name: string;
        };
        CreationPreview: {
            allowed: boolean;
            /** @description present when creation is unavailable */
            reason?: string;
            /**
             * @description the rule that makes creation unavailable
             * @enum {string}
             */
            reason_code?: "owns_organization" | "staff_in_organization" | "organization_session" | "personal_plan_active" | "personal_payment_processing";
            /** @description purchased credits that would move */
            transfer_credits: number;
        };
        CreditState: {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed: number;
                /** @description the last event included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            /** @description used in the current cycle */
            credits_used: number;
            /** Format: date-time */
            cycle_end: string;
            /** Format: date-time */
            cycle_start: string;
            /** @description not a substitute for the live API-data access check */
            has_paid_entitlement: boolean;
            is_legacy: boolean;
            lifetime_purchased: number;
            /** @description monthly allocation */
            monthly_credits: number;
            plan_label: string;
            /** @description purchased balance */
            purchased_credits: number;
        };
        CreditUsage: {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed: number;
                /** @description the last event included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            /** Format: date-time */
            cycle_start: string;
            usage: {
                /** @enum {string} */
                category: "host" | "dns" | "whois" | "certs" | "alerting" | "subdomains" | "exports" | "tools";
                credits: number;
            }[];
            /** @description the MCP subset of usage, not an extra charge */
            usage_mcp: {
                /** @enum {string} */
                category: "host" | "dns" | "whois" | "certs" | "alerting" | "subdomains" | "exports" | "tools";
                credits: number;
            }[];
        };
        CurrentSession: {
            account_id: string;
            email: string;
            /** @description the organization this session is restricted to; null in the personal context */
            organization_id: string | null;
            plan: string;
        };
        /** @description rows, or facet counts when aggregate is true */
        DatasetSearchAnswer: {
            credits_charged: number;
            data: {
                [key: string]: unknown;
            }[];
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            lower_bound: boolean;
            page: number;
            /** @enum {integer} */
            results_per_page: 10 | 30 | 50;
            /**
             * Format: uuid
             * @description organization searches: the completed search evidence is saved from
             */
            search_id?: string;
            total: number | null;
        } | {
            /** @enum {boolean} */
            aggregate: true;
            credits_charged: number;
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            facets: components["schemas"]["Facets"];
        };
        DatasetSearchBody: {
            /**
             * @description true gives facet counts instead of rows
             * @default false
             */
            aggregate: boolean;
            /** @default false */
            broad: boolean;
            /**
             * @description all, or a comma-separated list of field names
             * @default all
             */
            include: string;
            /**
             * @description paging stops at 10000 records: (page - 1) × results_per_page stays below it
             * @default 1
             */
            page: number;
            /** @description query language; trimmed, nonempty, at most 512 UTF-8 bytes */
            raw_query: string;
            /**
             * @default 10
             * @enum {number}
             */
            results_per_page: 10 | 30 | 50;
            /**
             * @default all_time
             * @enum {string}
             */
            time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
        };
        /**
         * @description only ok is a result; the others are never zero matches
         * @enum {string}
         */
        DatasetState: "ok" | "timeout" | "busy" | "error" | "invalid_query" | "cancelled";
        DecisionBody: {
            /** @description required for closed and updated */
            according_to?: string | null;
            /**
             * Format: date
             * @description YYYY-MM-DD, not in the future in the scope timezone
             */
            announced_date?: string | null;
            /** @enum {string|null} */
            conclusion?: "kept" | "closed" | "updated" | "not_concerned" | "other" | null;
            /** @enum {string} */
            decision: "new" | "investigating" | "acknowledged";
            /** @description required for not_concerned and other */
            note?: string | null;
            /**
             * Format: date
             * @description renewed expiry date, YYYY-MM-DD (domain-expiry subjects only)
             */
            renewal?: string | null;
            /** @description the current body version of the subject (not If-Match) */
            version: number | string;
        };
        DeleteClientBody: {
            /** @description the exact current name, as confirmation */
            name: string;
        };
        DeletedClientList: {
            clients: {
                /** Format: date-time */
                deleted_at: string;
                deleted_by: string;
                domain: string | null;
                /**
                 * Format: date-time
                 * @description after it the client is erased; restore before
                 */
                erase_after: string;
                /** Format: uuid */
                id: string;
                kind: string;
                name: string;
                previous_state: string;
                /** @description the quoted version to send in If-Match */
                version: string;
            }[];
        };
        EnforcementBody: {
            /** @description true enforces single sign-on for staff; refused before the recovery code was tested and saved */
            enforced: boolean;
        };
        Error400: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "malformed_request";
        };
        Error401: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "unauthenticated" | "token_revoked" | "sso_failed";
        };
        Error402: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "entitlement_required" | "insufficient_credits" | "export_quota_exhausted" | "envelope_exhausted";
        };
        Error403: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "forbidden" | "csrf_failed" | "insufficient_scope" | "organization_restricted" | "personal_research_unavailable" | "trial_ineligible" | "trial_field_omitted" | "sso_required" | "sso_not_member" | "exposure_not_enabled";
        };
        Error404: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "not_found";
        };
        Error409: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "version_conflict" | "already_exists" | "transfer_changed" | "capacity_conflict" | "export_not_ready" | "creation_unavailable" | "space_required" | "case_required" | "case_unavailable" | "rerun_required" | "domain_not_verified" | "sso_not_configured" | "recovery_code_required" | "restore_window_closed" | "staff_of_another_organization" | "report_limit_reached" | "report_too_large";
        };
        Error410: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "export_expired";
        };
        Error413: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "payload_too_large";
        };
        Error414: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "uri_too_long";
        };
        Error415: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "unsupported_media_type";
        };
        Error422: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "invalid_input" | "invalid_query" | "invalid_cve_selector" | "invalid_reference" | "personal_mailbox_domain" | "recovery_code_invalid";
        };
        Error428: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "precondition_required";
        };
        Error429: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "rate_limited" | "background_busy";
        };
        Error503: components["schemas"]["ErrorBody"] & {
            /** @enum {string} */
            code?: "lookup_unavailable" | "sso_provider_unavailable" | "not_ready";
        };
        ErrorBody: {
            /**
             * @description stable error code; callers read it, not only the status
             * @enum {string}
             */
            code: "malformed_request" | "unauthenticated" | "token_revoked" | "sso_failed" | "entitlement_required" | "insufficient_credits" | "export_quota_exhausted" | "envelope_exhausted" | "forbidden" | "csrf_failed" | "insufficient_scope" | "organization_restricted" | "personal_research_unavailable" | "trial_ineligible" | "trial_field_omitted" | "sso_required" | "sso_not_member" | "exposure_not_enabled" | "not_found" | "method_not_allowed" | "version_conflict" | "already_exists" | "transfer_changed" | "capacity_conflict" | "export_not_ready" | "creation_unavailable" | "space_required" | "case_required" | "case_unavailable" | "rerun_required" | "domain_not_verified" | "sso_not_configured" | "recovery_code_required" | "restore_window_closed" | "staff_of_another_organization" | "report_limit_reached" | "report_too_large" | "request_timeout" | "export_expired" | "payload_too_large" | "uri_too_long" | "unsupported_media_type" | "invalid_input" | "invalid_query" | "invalid_cve_selector" | "invalid_reference" | "personal_mailbox_domain" | "recovery_code_invalid" | "precondition_required" | "rate_limited" | "background_busy" | "headers_too_large" | "internal_error" | "report_integrity_failed" | "lookup_unavailable" | "sso_provider_unavailable" | "not_ready";
            /** @description what the refusal is about (fields, limits, current version, …) */
            details?: {
                [key: string]: unknown;
            };
            /** @description readable explanation */
            message: string;
            /** @description the id of this request (also in the X-Request-Id header) */
            request_id: string;
        };
        Evaluation: {
            /** @description only a complete no_match is a completed negative catalogue lookup */
            complete: boolean;
            /** @description the CPE evaluated; empty for reference-based calls */
            cpe: string;
            findings: components["schemas"]["Finding"][];
            /** @description why: matched, no_applicable_advisory, product_not_in_catalogue, version_unknown, additional_conditions, no_cpe, invalid_cpe, catalogue_empty, or the CPE attribute the outcome depends on */
            reason: string;
            /** @enum {string} */
            source: "observation" | "cpe";
            /** @enum {string} */
            status: "matched" | "no_match" | "indeterminate";
            total: number;
            /** @description advisories that could not be decided */
            undetermined: string[];
        };
        EventLogKey: {
            /** @enum {string} */
            algorithm: "Ed25519";
            /** @description the event stream the signed checkpoints are appended to */
            checkpoint_stream: string;
            /** @description first 16 hex digits of the SHA-256 of the public key (DER), as in checkpoints */
            key_id: string;
            /** @description the public key, SPKI PEM */
            public_key: string;
            /** @description the service's retired keys (its key ring, kept outside the log): they verify the checkpoints signed before their retirement. key_id and public_key above stay the active key */
            retired_keys: {
                /** @description the key id its checkpoints name */
                key_id: string;
                /** @description the public key, SPKI PEM */
                public_key: string;
                /**
                 * Format: date-time
                 * @description when a rotation retired it (null: held as trusted, no retirement recorded)
                 */
                retired_at: string | null;
                /** @description global position of the rotation record: checkpoints it signed at or after it are refused */
                retired_at_position: string | null;
                /** @description the key that replaced it */
                successor_key_id: string | null;
            }[];
            /** @description the event stream of key rotations: each record is signed by the retiring and the new key */
            rotation_stream: string;
        };
        Evidence: {
            /** Format: uuid */
            case_id: string;
            /** Format: uuid */
            id: string;
            note: string;
            records: {
                [key: string]: unknown;
            }[];
            /** Format: date-time */
            saved_at: string;
            saved_by: string | null;
            /** Format: uuid */
            search_id: string;
            /** Format: uuid */
            space_id: string;
            /** @enum {string} */
            visibility: "internal" | "client";
        };
        ExportCreated: {
            /** Format: uuid */
            export_id: string;
        };
        ExportEstimate: {
            /** @description matching rows */
            estimated_count: number;
            /** @description ceil(rows / 100) for the rows the export would write (partial_limit when partial) */
            estimated_credits: number;
            estimated_file_size_bytes: number;
            partial_limit: number | null;
            quota_after_export: {
                results_max: number;
                results_used: number;
            };
            quota_current: {
                results_max: number;
                results_used: number;
            };
            will_be_partial: boolean;
        };
        ExportEstimateBody: {
            /**
             * @description true disables smart interpretation of bare inputs
             * @default false
             */
            broad: boolean;
            /**
             * @description only used to estimate the file size
             * @default json
             * @enum {string}
             */
            format: "json" | "csv" | "txt";
            /**
             * @description query language; trimmed, nonempty, at most 512 UTF-8 bytes
             * @example port:443
             */
            raw_query: string;
            /**
             * @default all_time
             * @enum {string}
             */
            time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
        };
        ExportJob: {
            /** Format: date-time */
            created_at: string;
            /** @description ceil(results_count / 100) */
            credits_consumed: number;
            estimated_count: number;
            /** Format: date-time */
            expires_at: string | null;
            failure_reason?: string;
            file_available: boolean;
            /** @description the stored (gzip) file */
            file_size_bytes: number | null;
            /** @enum {string} */
            format: "json" | "csv" | "txt";
            /** Format: uuid */
            id: string;
            /** @description the file decompressed */
            original_size_bytes: number | null;
            raw_query: string;
            /** @description rows exported */
            results_count: number;
            /** @enum {string} */
            search_type: "hosts" | "dns" | "whois" | "vhosts";
            /** @enum {string} */
            status: "pending" | "processing" | "completed" | "failed" | "cancelled";
            /** @enum {string} */
            time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
            truncation_reason?: string;
            /** @description cut to what the balance and quota covered */
            was_truncated: boolean;
        };
        ExportList: {
            /** @description newest first */
            exports: components["schemas"]["ExportJob"][];
        };
        ExportRemoved: {
            export?: components["schemas"]["ExportJob"];
            /** Format: uuid */
            export_id: string;
            /** @enum {string} */
            outcome: "cancelled" | "deleted";
        };
        ExportRequestBody: {
            /** @default false */
            broad: boolean;
            /**
             * @description json: one JSON document per line (NDJSON); csv: RFC 4180 with a header row, nested fields flattened to dotted columns, lists joined with ";"; txt: one primary value per line (hosts: ip, dns: name, vhosts: fingerprint, whois: domain)
             * @enum {string}
             */
            format: "json" | "csv" | "txt";
            /**
             * @description query language; trimmed, nonempty, at most 512 UTF-8 bytes
             * @example port:443
             */
            raw_query: string;
            /**
             * @default all_time
             * @enum {string}
             */
            time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
        };
        ExportsRemoved: {
            cancelled_count: number;
            deleted_count: number;
        };
        ExposureMonitoringBody: {
            /** @description true activates scheduled observation watches; false stops them */
            enabled: boolean;
        };
        ExposureScope: {
            addresses: string[];
            /** @enum {string|null} */
            billing: "capacity" | "credit" | null;
            /** Format: date-time */
            created_at: string;
            credit_limit: number | null;
            domain: string | null;
            /** Format: date-time */
            erase_after: string | null;
            /** Format: uuid */
            id: string;
            kind: string;
            latest_refresh: {
                attempt: number;
                /**
                 * Format: date-time
                 * @description eligibility time of a queued task, not a deadline
                 */
                available_at: string | null;
                error: string | null;
                /** Format: date-time */
                finished_at: string | null;
                id: string;
                /** Format: date-time */
                last_attempt_at: string | null;
                /** Format: date-time */
                requested_at: string;
                /** Format: date-time */
                started_at: string | null;
                /** @enum {string} */
                status: "queued" | "running" | "retry_scheduled" | "completed" | "failed" | "cancelled";
            } | null;
            monitoring: boolean;
            name: string;
            /** @enum {string} */
            state: "active" | "archived" | "deleted";
            /** @description IANA timezone name */
            timezone: string | null;
            /** @description the quoted version to send in If-Match */
            version: string;
        };
        /** @description counts of the most frequent values, by field */
        Facets: {
            [key: string]: {
                count: number;
                value: string | number | boolean;
            }[];
        };
        Finding: {
            additional_conditions: {
                criteria: string[];
                note: string;
                /** @enum {string} */
                operator: "AND" | "OR";
            }[];
            cvss: {
                base_score: number;
                base_severity: string;
                vector_string: string;
                version: string;
            } | null;
            cwe: string[];
            description: string | null;
            /** @description the CVE identifier */
            id: string;
            /** @description the KEV entry; false when a loaded KEV catalogue does not list it; null means unknown */
            kev: {
                cve_id: string;
                date_added: string | null;
                due_date: string | null;
                known_ransomware_campaign_use: string | null;
                notes: string | null;
                product: string | null;
                required_action: string | null;
                short_description: string | null;
                vendor_project: string | null;
                vulnerability_name: string | null;
            } | false | null;
            last_modified: string | null;
            matched_criteria: string[];
            observed_products: {
                product: string | null;
                vendor: string | null;
                version: string | null;
            }[];
            published: string | null;
            severity: string | null;
            vuln_status: string | null;
        };
        History: {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed?: number;
                /** @description the last event of the scope included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            /** @description newest first */
            entries: components["schemas"]["HistoryEntry"][];
            /** @enum {integer} */
            limit: 50;
            offset: number;
            subject: string | null;
            total: number;
        };
        HistoryEntry: {
            actor: string;
            /** Format: date-time */
            at: string;
            correlation_id: string;
            /** @description what the event recorded */
            details: {
                [key: string]: unknown;
            };
            id: string;
            payer: string;
            /** @description global position of the event */
            position: string;
            subject_id: string | null;
            summary: string;
            type: string;
        };
        Inventory: {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed?: number;
                /** @description the last event of the scope included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            evaluation: {
                catalogue_version: number | null;
                complete: boolean;
                eligible: number;
                evaluated: number;
                services: number;
            };
            filter: string | null;
            filter_options: {
                coverage: {
                    count: number;
                    value: string;
                }[];
                decision: {
                    count: number;
                    value: string;
                }[];
                kind: {
                    count: number;
                    value: string;
                }[];
                result: {
                    count: number;
                    value: string;
                }[];
            };
            /** @enum {string|null} */
            group_by: "host" | null;
            /** @description with group_by=host */
            hosts?: {
                host: string;
                hostnames: string[];
                services: components["schemas"]["Subject"][];
            }[];
            latest_refresh: {
                attempt: number;
                /**
                 * Format: date-time
                 * @description eligibility time of a queued task, not a deadline
                 */
                available_at: string | null;
                error: string | null;
                /** Format: date-time */
                finished_at: string | null;
                id: string;
                /** Format: date-time */
                last_attempt_at: string | null;
                /** Format: date-time */
                requested_at: string;
                /** Format: date-time */
                started_at: string | null;
                /** @enum {string} */
                status: "queued" | "running" | "retry_scheduled" | "completed" | "failed" | "cancelled";
            } | null;
            /** @enum {integer} */
            limit: 100;
            monitoring: {
                baseline: {
                    /** Format: date-time */
                    established_at: string;
                    run_id: string;
                    services: number;
                } | null;
                enabled: boolean;
                latest_watch: {
                    /** Format: date-time */
                    finished_at: string;
                    new_kev_associations: number;
                    newly_observed_services: number;
                    /** @description never evidence that a service disappeared */
                    not_observed_in_this_run: number;
                    /** @enum {string} */
                    outcome: "baseline" | "compared" | "inconclusive";
                    partial: boolean;
                    reason: string | null;
                    run_id: string;
                } | null;
                note: string;
            };
            notice: string;
            observations: {
                /** Format: date-time */
                first_seen: string | null;
                /** Format: date-time */
                last_attempt_at: string | null;
                /** Format: date-time */
                last_seen: string | null;
                /** Format: date-time */
                refreshed_at: string | null;
            };
            offset: number;
            /** @description no completed refresh, a failed or retried one, or a short catalogue */
            partial: boolean;
            scope: {
                domain: string | null;
                /** Format: uuid */
                id: string;
                name: string;
                state: string;
            };
            /** @description without group_by */
            subjects?: components["schemas"]["Subject"][];
            summary: {
                coverage: {
                    by_processing: {
                        [key: string]: number;
                    };
                    by_state: {
                        [key: string]: number;
                    };
                    excluded_shared_edge: number;
                    services: number;
                };
            };
            totals: {
                /** @description by decision state */
                decisions: {
                    [key: string]: number;
                };
                domain_registrations: number;
                hosts: number;
                kev: number;
                matched: number;
                matching: number;
                services: number;
                subjects: number;
            };
        };
        InvitationBody: {
            /** Format: email */
            email: string;
            /** @description An external user's envelope (credits) */
            portion?: number | null;
            /** @enum {string} */
            role: "administrator" | "analyst" | "external_client";
            space_ids?: string[];
        };
        InvitationSent: {
            email: string;
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            role: "owner" | "administrator" | "analyst" | "external_client";
        };
        IssueApiKeyBody: {
            /** @example laptop scripts */
            label?: string;
        };
        IssuedApiKey: {
            id: string;
            /** Format: date-time */
            issued_at: string;
            /** @description the key itself: shown in this answer only */
            key: string;
            label: string;
            /** @description the start of the key, to recognise it */
            prefix: string;
            /** Format: date-time */
            revoked_at: string | null;
        };
        IssuedRecoveryCode: {
            /** @description shown in this answer only */
            recovery_code: string;
            settings: components["schemas"]["SsoSettings"];
        };
        Liveness: {
            /** @enum {string} */
            status: "ok";
        };
        LoginBody: {
            /**
             * Format: email
             * @example demo@example.com
             */
            email: string;
            password: string;
        };
        MemberList: {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed: number;
                /** @description the last event included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            /** @description managers only; empty for others */
            invitations: {
                email: string;
                /** Format: uuid */
                id: string;
                /** Format: date-time */
                invited_at: string;
                portion: number | null;
                /** @enum {string} */
                role: "owner" | "administrator" | "analyst" | "external_client";
                space_ids: string[];
            }[];
            members: {
                account_id: string;
                /** Format: date-time */
                added_at: string;
                /** @description managers only */
                portion?: number | null;
                /** @enum {string} */
                role: "owner" | "administrator" | "analyst" | "external_client";
                /** @description managers only */
                space_ids?: string[];
            }[];
        };
        Monitoring: {
            monitoring: {
                /** Format: date-time */
                activated_at: string | null;
                baseline: {
                    /** Format: date-time */
                    established_at: string;
                    run_id: string;
                    services: number;
                } | null;
                enabled: boolean;
                interval_hours: number;
                latest_watch: {
                    /** Format: date-time */
                    finished_at: string;
                    new_kev_associations: number;
                    newly_observed_services: number;
                    /** @description never evidence that a service disappeared */
                    not_observed_in_this_run: number;
                    /** @enum {string} */
                    outcome: "baseline" | "compared" | "inconclusive";
                    partial: boolean;
                    reason: string | null;
                    run_id: string;
                } | null;
                notice: string;
                schedule_id: string | null;
            };
            scope: components["schemas"]["ExposureScope"];
        };
        MonitoringBody: {
            enabled: boolean;
        };
        NotificationPreference: {
            delivery: string;
            enabled: boolean;
            /** @enum {string} */
            language: "fr" | "en";
            /** @description member user ids */
            recipients: string[];
            /** Format: date-time */
            saved_at: string | null;
            /** @description saves so far: send it back to save */
            version: number;
        };
        NotificationPreferenceBody: {
            /** @description starts false */
            enabled: boolean;
            /** @enum {string} */
            language: "fr" | "en";
            /** @description 0 to 20 member user ids, each once; at least one when enabled */
            recipients: string[];
            /** @description the preference version you read (0 before the first save) */
            version: number | string;
        };
        OpenCaseBody: {
            /** Format: uuid */
            space_id: string;
            /** @description not blank (trimmed) */
            title: string;
        };
        OperatorProjections: {
            /** @description the log's newest global position */
            head_position: string | null;
            projections: {
                /** @description a generation a rebuild is building, or null */
                building_generation: number | null;
                events_applied: number;
                /** @description events of the log not applied yet */
                lag_events: number;
                /** @description true when lag_events is only a lower bound (10,000 counted) */
                lag_events_at_least: boolean;
                /** @description time between the last applied event and the newest one */
                lag_seconds: number;
                last_error: string | null;
                /** @description the generation readers use; null before it exists */
                live_generation: number | null;
                name: string;
                /** @description the last event the live generation applied (global position) */
                position: string | null;
                /** @description while a rebuild (CLI) builds a new generation: its progress */
                rebuild: {
                    events_applied: number;
                    generation: number;
                    /** @description events of the log not applied yet */
                    lag_events: number;
                    /** @description true when lag_events is only a lower bound (10,000 counted) */
                    lag_events_at_least: boolean;
                    /** @description the last event the new generation applied */
                    position: string | null;
                } | null;
                /** @description as its runner last reported it: starting, catching_up, live, rebuilding, retrying, stopped; unknown or not_created */
                state: string;
                /** Format: date-time */
                state_reported_at: string | null;
                /** @description the process that reported the state */
                state_reported_by: string | null;
                /** @description the projection definition's version */
                version: number;
            }[];
            /** Format: date-time */
            read_at: string;
        };
        Organization: {
            /** @description what lifts the restriction */
            action: string | null;
            /** Format: uuid */
            general_space_id: string | null;
            /** Format: uuid */
            id: string;
            name: string;
            owner_account_id: string | null;
            ownership_offer: {
                /** Format: date-time */
                offered_at: string;
                to: string;
            } | null;
            /** @enum {string|null} */
            plan: "trial" | "teams" | "business" | null;
            /** @enum {string|null} */
            requested_plan: "teams" | "business" | null;
            /** @description pending approval, inactive or awaiting payment (rule 14) */
            restricted: boolean;
            /** @enum {string} */
            role: "owner" | "administrator" | "analyst" | "external_client";
            spaces: components["schemas"]["Space"][];
            sso: {
                enforced: boolean;
            };
            /** @enum {string|null} */
            start: "trial" | "subscription" | null;
            /** @enum {string} */
            status: "pending_verification" | "pending_approval" | "awaiting_payment" | "inactive" | "active";
            trial: {
                domain: string;
                ended: boolean;
                /** Format: date-time */
                ends_at: string;
                /** Format: date-time */
                started_at: string;
            } | null;
            verification: {
                domain: string;
                record: {
                    name: string;
                    /** @enum {string} */
                    type: "TXT";
                    value: string;
                };
                /** Format: date-time */
                verified_at: string | null;
            } | null;
        };
        OrganizationAuditLog: {
            /** @description oldest first (log order) */
            entries: {
                /** @description who did it: account:<id>, operator:<name> or system:<component> */
                actor: string;
                causation_id: string;
                /**
                 * @description verified: at or before the last checkpoint the service verified; not_verified_yet: after it (the next verification covers it); verification_failed: after it, and the last verification found tampering; unverifiable: the event store keeps no hash chain
                 * @enum {string}
                 */
                chain_verification: "verified" | "not_verified_yet" | "verification_failed" | "unverifiable";
                correlation_id: string;
                /** @description the credential that acted (its id, never a secret); null when not recorded */
                credential: unknown;
                event_id: string;
                /** @description who paid or on whose behalf: account:<id>, organization:<id>, system */
                on_behalf_of: string;
                /** @description global log position: the order of the log */
                position: string;
                /** @description why, when the command recorded a reason */
                reason: string | null;
                /** Format: date-time */
                recorded_at: string;
                request_id: string | null;
                /** @description the client space or exposure scope, when any */
                scope: string | null;
                /** @description the stream it was recorded on (README, "Stream naming") */
                stream: string;
                stream_version: number;
                /** @description where it came from (session, personal API, CLI, …), when recorded */
                surface: string | null;
                /** @description the event type, e.g. MemberInvited */
                type: string;
            }[];
            /** @description pass as `after` for the next page; null on the last page */
            next_cursor: string | null;
            verification: {
                /** @description the newest event sealed into the chain (not necessarily verified) */
                chain_head: {
                    /** @description hex SHA-256 of the global chain through this event */
                    chain_head: string;
                    chain_index: number;
                    /** @description global log position */
                    position: string;
                } | null;
                last_verification: {
                    /**
                     * Format: date-time
                     * @description when the service last verified the log
                     */
                    at: string;
                    /** @description the kind and position of the first finding */
                    finding: string | null;
                    /** @description false: it found tampering */
                    ok: boolean;
                } | null;
                /** @description the newest signed checkpoint whose signature and chain head the service verified */
                last_verified_checkpoint: {
                    /** @description hex SHA-256 of the global chain through this event */
                    chain_head: string;
                    chain_index: number;
                    /** @description global log position */
                    position: string;
                    /** Format: date-time */
                    signed_at: string;
                } | null;
                /** @description false: this event store keeps no hash chain */
                supported: boolean;
            };
        };
        /** @description managers see the shared balance; other members their permitted envelope (rule 8) */
        OrganizationCredits: {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed: number;
                /** @description the last event included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            available: number;
            balance: number;
            reserved: number;
            /** @enum {string} */
            scope: "shared";
        } | {
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed: number;
                /** @description the last event included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            available: number;
            envelopes: {
                available: number;
                key: string;
                limit: number;
            }[];
            /** @enum {string} */
            scope: "envelope";
        };
        OrganizationList: {
            organizations: {
                /** Format: uuid */
                id: string;
                name: string;
                /** @enum {string} */
                role: "owner" | "administrator" | "analyst" | "external_client";
                /** @enum {string} */
                status: "pending_verification" | "pending_approval" | "awaiting_payment" | "inactive" | "active";
            }[];
        };
        OwnershipOfferBody: {
            /** Format: uuid */
            account_id: string;
        };
        OwnershipOffered: {
            offered_to: string;
        };
        PrepareComparisonBody: {
            evidence_ids: string[];
            /** Format: uuid */
            space_id: string;
            /** @description not blank (trimmed) */
            title: string;
        };
        ProtectedResourceMetadata: {
            authorization_servers: string[];
            bearer_methods_supported: string[];
            /** @description the resource identifier (RFC 8707) a token is bound to */
            resource: string;
            resource_name: string;
            scopes_supported: string[];
        };
        PublishedView: {
            comparisons: components["schemas"]["Comparison"][];
            /** Format: uuid */
            space_id: string;
        };
        Readiness: {
            /** @description background work by name (export-pool, reservation-sweeper…): whether it fails, since when and how often (shown, not counted in readiness) */
            background: {
                [key: string]: {
                    /** @description failures in a row of its look for work, or of its most failing item */
                    consecutive_failures?: number;
                    /** @description items with a failure record */
                    failing_item_count?: number;
                    /**
                     * Format: date-time
                     * @description while it fails: since when
                     */
                    failing_since?: string;
                    ok: boolean;
                };
            };
            catalogue: {
                /** Format: date-time */
                built_at: string | null;
                detail?: string;
                /**
                 * @description current: built with this matcher version; rebuilding: the start-up rebuild runs (cve:/kev: answer from the old associations meanwhile); stale: built by another matcher version (`catalogue reindex` or a restart rebuilds it); unknown: the index could not be read
                 * @enum {string}
                 */
                index: "current" | "rebuilding" | "stale" | "unknown";
                /** @description the matcher version the index was built with */
                index_matcher_version: number | null;
                /** @description the service's matcher version */
                matcher_version: number;
            };
            checks: {
                event_store: {
                    detail?: string;
                    ok: boolean;
                };
                projections: {
                    detail?: string;
                    ok: boolean;
                };
                read_store: {
                    detail?: string;
                    ok: boolean;
                };
            } & {
                [key: string]: {
                    detail?: string;
                    ok: boolean;
                };
            };
            event_log: {
                /** @description present while a key rotation retired the key this instance holds: it signs no checkpoint until it has the new key (KEY_FILE, or a restart) */
                retired_signing_key?: {
                    /** @description the retired key this instance still holds */
                    key_id: string;
                    /** @description the key that replaced it */
                    successor_key_id: string;
                };
                verified: {
                    /**
                     * Format: date-time
                     * @description when this instance last verified the log
                     */
                    at: string;
                    checkpoint: {
                        chain_head: string;
                        chain_index: number;
                        position: string;
                        /** Format: date-time */
                        signed_at: string;
                    } | null;
                    /** @description the kind and position of the first finding */
                    finding?: string;
                    /** @description false: the last verification found tampering (`events verify` names it) */
                    ok: boolean;
                } | null;
            };
            projections: {
                last_error?: string;
                name: string;
                /** @description the last event applied (global position) */
                position: string | null;
                /** @enum {string} */
                state: "starting" | "catching_up" | "live" | "rebuilding" | "retrying" | "stopped";
            }[];
            /** @enum {string} */
            status: "ready" | "not_ready";
        };
        RecordRefBody: {
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            id: string;
        };
        RecoveryCodeBody: {
            /** @example ABCDE-FGHJK-MNPQR-STVWX-YZ012 */
            recovery_code: string;
        };
        RecoverySignIn: {
            account_id: string;
            csrf_token: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: uuid */
            organization_id: string;
            /** @enum {boolean} */
            recovery_code_used: true;
        };
        RecoverySignInBody: {
            /**
             * Format: email
             * @example owner@example.com
             */
            email: string;
            password: string;
            /** @example ABCDE-FGHJK-MNPQR-STVWX-YZ012 */
            recovery_code: string;
        };
        RefreshRun: {
            attempt: number;
            /**
             * Format: date-time
             * @description eligibility time of a queued task, not a deadline
             */
            available_at: string | null;
            /** @enum {string} */
            billing: "capacity" | "credit";
            charged_credits: number | null;
            error: string | null;
            /** Format: date-time */
            finished_at: string | null;
            id: string;
            /** Format: date-time */
            last_attempt_at: string | null;
            notice: string;
            reads: string;
            /** @description true: this key already ran; its earlier run is answered */
            replayed: boolean;
            /** Format: date-time */
            requested_at: string;
            /** Format: date-time */
            started_at: string | null;
            /** @enum {string} */
            status: "queued" | "running" | "retry_scheduled" | "completed" | "failed" | "cancelled";
            trigger: string;
        };
        RenameOrganizationBody: {
            /** @description not blank (trimmed) */
            name: string;
        };
        /** @description the saved document: organization name, scope name, author, timezone, reference time, observations and at most 500 history entries (history_partial marks a cut history) */
        ReportDocument: {
            [key: string]: unknown;
        };
        ReportList: {
            /** @enum {integer} */
            limit: 100;
            /** @description newest first */
            reports: components["schemas"]["ReportSummary"][];
            total: number;
        };
        ReportSummary: {
            /** @description what the team saw then: GET …/exposure?as_of=<this> */
            as_of: string;
            author_id: string;
            content_sha256: string;
            /** @description where the saved document is read */
            document: string;
            /** Format: date-time */
            frozen_at: string;
            history_entries: number;
            /** @description the history was cut at 500 entries */
            history_partial: boolean;
            history_total: number;
            /** Format: uuid */
            id: string;
            kev: number;
            matched: number;
            observations: number;
            partial: boolean;
            reference_position: string | null;
            /** Format: date-time */
            reference_time: string;
            /** Format: uuid */
            scope_id: string;
            scope_name: string;
            sequence: number;
            size_bytes: number;
            timezone: string;
        };
        ReviewItem: {
            /** Format: date-time */
            added_at: string;
            added_by: string;
            assignee: string | null;
            /** @description YYYY-MM-DD */
            due_date: string | null;
            /** Format: uuid */
            id: string;
            /** @description the queued observation, as the completed search returned it */
            record: {
                [key: string]: unknown;
            };
            /** Format: uuid */
            search_id: string;
            source: {
                /** Format: uuid */
                case_id: string;
                /** Format: uuid */
                evidence_id: string;
            } | null;
            /** Format: uuid */
            space_id: string;
        };
        ReviewQueue: {
            items: components["schemas"]["ReviewItem"][];
        };
        ReviewSourceBody: {
            /** Format: uuid */
            case_id: string;
            /** Format: uuid */
            evidence_id: string;
        };
        RunBody: {
            /** @description stable key (printable ASCII, no space): the same key never runs twice */
            key: string;
        };
        SaveEvidenceBody: {
            /** @description not blank (trimmed) */
            note: string;
            records: components["schemas"]["RecordRefBody"][];
            /** Format: uuid */
            search_id: string;
            /** @enum {string} */
            visibility?: "internal" | "client";
        };
        SearchBody: {
            /**
             * @description true disables smart interpretation of bare inputs
             * @default false
             */
            broad: boolean;
            /**
             * @description positive values are capped at 25
             * @default 20
             */
            per_type_limit: number;
            /**
             * @description query language; trimmed, nonempty, at most 512 UTF-8 bytes
             * @example product:nginx port:443
             */
            raw_query: string;
            /**
             * @description false gives one JSON response; omitted or true gives SSE
             * @default true
             */
            stream: boolean;
            /**
             * @default all_time
             * @enum {string}
             */
            time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
        };
        SearchFields: {
            datasets: ("hosts" | "dns" | "vhosts" | "whois")[];
            fields: {
                aggregatable: boolean;
                datasets: ("hosts" | "dns" | "vhosts" | "whois")[];
                description: string;
                /** @enum {string|null} */
                entitlement: "cpe" | "whois_contacts" | null;
                multiple: boolean;
                name: string;
                /** @enum {string} */
                type: "keyword" | "text" | "integer" | "date" | "ip" | "boolean";
            }[];
            /** @description credits by dataset, and favicon_search */
            prices: {
                [key: string]: number;
            };
        };
        SearchMoreBody: {
            /** @default false */
            broad: boolean;
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            /** @description paging stops at 10000 records: (page - 1) × per_type_limit stays below it */
            page: number;
            /**
             * @description positive values are capped at 25
             * @default 20
             */
            per_type_limit: number;
            /** @description query language; trimmed, nonempty, at most 512 UTF-8 bytes */
            raw_query: string;
            /**
             * @default all_time
             * @enum {string}
             */
            time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
        };
        SearchMorePage: {
            capped: boolean;
            credits_charged: number;
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            lower_bound: boolean;
            page: number;
            per_type_limit: number;
            results: components["schemas"]["SearchResultItem"][];
            status: components["schemas"]["DatasetState"];
            total: number | null;
        };
        SearchMoreQuote: {
            /** @description the dataset's price (or the favicon search price) */
            base_price: number;
            /** @description when the price is charged */
            charged_when: string;
            /** @description what search/more charges for this page when it is charged */
            credits: number;
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            /** @description from the depth tier of first_record */
            depth_multiplier: number;
            /** @description offset of the page's first record */
            first_record: number;
            page: number;
            per_type_limit: number;
        };
        SearchOutcome: {
            credits_charged: number;
            /** @description by dataset, as the stream sends them */
            facets?: {
                [key: string]: components["schemas"]["Facets"];
            };
            lower_bound: boolean;
            partial: boolean;
            per_type_capped: ("hosts" | "dns" | "vhosts" | "whois")[];
            per_type_failed: ("hosts" | "dns" | "vhosts" | "whois")[];
            /** @description by dataset */
            per_type_status: {
                [key: string]: components["schemas"]["DatasetState"];
            };
            per_type_timed_out: ("hosts" | "dns" | "vhosts" | "whois")[];
            query: {
                broad: boolean;
                per_type_limit: number;
                raw_query: string;
                /** @enum {string} */
                time_frame: "all_time" | "last_24h" | "last_7d" | "last_30d" | "this_year";
            };
            /** @description by dataset */
            results: {
                [key: string]: components["schemas"]["SearchResultItem"][];
            };
            /**
             * Format: uuid
             * @description organization searches: the completed search evidence is saved from
             */
            search_id?: string;
            /** @description by dataset; count is null when the dataset did not answer */
            totals: {
                [key: string]: {
                    count: number | null;
                    lower_bound: boolean;
                };
            };
        };
        SearchResultItem: {
            /** @enum {string} */
            dataset: "hosts" | "dns" | "vhosts" | "whois";
            id: string;
            /** @description the stored observation; host observations carry an opaque vulnerability_ref. Other fields: not shown */
            raw: {
                [key: string]: unknown;
            };
        };
        SelectContextBody: {
            /** Format: uuid */
            case_id?: string | null;
            /** Format: uuid */
            space_id: string;
        };
        /** @description Eligible session JSON object responses carry it; streams and arrays do not */
        ServiceCredits: {
            /** @description what the payer has available after it; null if unknown */
            available: number | null;
            /** @description credits this request charged */
            charged: number;
        };
        SessionContext: {
            /** Format: uuid */
            case_id: string | null;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            space_id: string | null;
            /** @description the session is restricted to this organization */
            switched: boolean;
        };
        SessionSwitched: {
            /** Format: uuid */
            case_id: string | null;
            /** Format: uuid */
            organization_id: string;
            /** Format: uuid */
            space_id: string | null;
        };
        Share: {
            /** Format: uuid */
            id: string;
            revoked: boolean;
        };
        SignedIn: {
            account_id: string;
            /** @description echo it in X-CSRF-Token on unsafe session requests */
            csrf_token: string;
            /** Format: date-time */
            expires_at: string;
        };
        Space: {
            addresses: string[];
            /** @description present when as_of was asked: the answer is replayed from the event log up to that point */
            as_of?: {
                eventsReplayed: number;
                /** @description the last event included in the replay */
                position: string | null;
                requested: string;
                /**
                 * Format: date-time
                 * @description the moment the answer describes
                 */
                time: string;
            };
            credit_limit: number | null;
            domain: string | null;
            /** Format: date-time */
            erase_after: string | null;
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            kind: "general" | "client" | "asset_scope";
            monitoring: boolean;
            name: string;
            shares: {
                id: string;
                revoked: boolean;
            }[];
            /** @enum {string} */
            state: "active" | "archived" | "deleted";
            /** @description IANA timezone name */
            timezone: string | null;
            /** @description the quoted version to send in If-Match */
            version: string;
        };
        SpaceList: {
            spaces: components["schemas"]["Space"][];
        };
        SsoSettings: {
            enforced: boolean;
            /** @description provider configured, recovery code tested and saved */
            enforcement_ready: boolean;
            /** Format: uuid */
            organization_id: string;
            provider: {
                client_id: string;
                /** @enum {boolean} */
                client_secret_set: true;
                issuer: string;
            } | null;
            recovery_code: {
                issued: boolean;
                /** Format: date-time */
                issued_at: string | null;
                saved: boolean;
                tested: boolean;
            };
            /** @description the address to register at the provider as the redirect URI */
            redirect_uri: string;
        };
        SsoSignInRequired: {
            accepted: boolean;
            /** Format: uuid */
            id: string;
            /** @description where staff sign in through the organization's provider */
            sign_in_url: string;
            sso_required: boolean;
        };
        /** @description a service or a domain registration; other fields of a subject: not shown */
        Subject: {
            asset_key: string;
            coverage?: {
                eligible: boolean;
                reasons: string[];
                /** @enum {string} */
                state: "evaluated" | "no_identifiers" | "imprecise_identifiers" | "identifier_limit" | "not_evaluated" | "catalogue_unavailable" | "catalogue_incomplete" | "processing_error" | "shared_edge";
            };
            decision: {
                according_to: string | null;
                announced_date: string | null;
                conclusion: string | null;
                /** Format: date-time */
                decided_at: string | null;
                decided_by: string | null;
                note: string | null;
                renewal: string | null;
                /** Format: date-time */
                reopened_at: string | null;
                /** @enum {string} */
                state: "new" | "investigating" | "acknowledged";
            };
            /** @description source, catalogue_version, findings, findings_total and last_attempt */
            evaluation?: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            first_seen: string;
            host?: string | null;
            hostnames?: string[];
            id: string;
            /** @enum {string} */
            kind: "service" | "domain_expiry";
            /** Format: date-time */
            last_attempt_at?: string | null;
            /** Format: date-time */
            last_seen: string | null;
            /** @description the stored observation behind the subject */
            observation?: {
                [key: string]: unknown;
            };
            observation_id?: string;
            observed_in_latest_refresh: boolean;
            observed_products?: {
                product: string | null;
                vendor: string | null;
                version: string | null;
            }[];
            port?: number | null;
            processing?: {
                attempt?: number;
                /** Format: date-time */
                available_at?: string | null;
                error?: string | null;
                /** Format: date-time */
                finished_at?: string | null;
                job_id?: string;
                /** Format: date-time */
                queued_at?: string;
                /** Format: date-time */
                started_at?: string | null;
                /** @enum {string} */
                state: "idle" | "paused" | "unknown" | "queued" | "retry_scheduled" | "running" | "interrupted" | "failed" | "cancelled";
            };
            product?: string | null;
            /** Format: date-time */
            result_at?: string | null;
            /** @enum {string|null} */
            result_state?: "kev" | "matched" | "no_match" | "indeterminate" | null;
            retained_result?: boolean;
            shared_edge?: boolean;
            transport?: string | null;
            vendor?: string | null;
            /** @description the body version a decision sends */
            version: number;
            version_observed?: string | null;
        };
        TimezoneBody: {
            /**
             * @description IANA timezone name
             * @example Europe/Paris
             */
            timezone: string;
            /** @description the scope version you read */
            version: number | string;
        };
        UpdateMemberBody: {
            portion?: number | null;
            /** @enum {string} */
            role?: "administrator" | "analyst" | "external_client";
        };
        UpdateReviewItemBody: {
            /** Format: uuid */
            assignee?: string | null;
            /**
             * Format: date
             * @example 2026-02-01
             */
            due_date?: string | null;
            source?: components["schemas"]["ReviewSourceBody"] | null;
        };
        UpdateSpaceBody: {
            credit_limit?: number | null;
            /** @description not blank (trimmed) */
            name?: string;
            /** @enum {string} */
            state?: "active" | "archived";
        };
        VulnerabilityEnrichment: {
            catalogue_version: number;
            cpes: string[] | null;
            /**
             * Format: date-time
             * @description when the catalogue in this version was established
             */
            evaluated_at: string | null;
            evaluations: components["schemas"]["Evaluation"][];
            kev_source: {
                catalog_version: string | null;
                count: number;
                date_released: string | null;
                title: string | null;
            } | null;
            notice: string;
        };
    };
    responses: {
        /** @description The request could not be read (malformed URL or request line). Codes: `malformed_request`. */
        Error400: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error400"];
            };
        };
        /** @description Missing or invalid authentication. Codes: `unauthenticated`, `token_revoked`, `sso_failed`. */
        Error401: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error401"];
            };
        };
        /** @description Entitlement or budget refusal. Codes: `entitlement_required`, `insufficient_credits`, `export_quota_exhausted`, `envelope_exhausted`. */
        Error402: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error402"];
            };
        };
        /** @description Permission or CSRF refusal. Codes: `forbidden`, `csrf_failed`, `insufficient_scope`, `organization_restricted`, `personal_research_unavailable`, `trial_ineligible`, `trial_field_omitted`, `sso_required`, `sso_not_member`, `exposure_not_enabled`. */
        Error403: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error403"];
            };
        };
        /** @description No such resource, or not one the caller may see. Codes: `not_found`. */
        Error404: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error404"];
            };
        };
        /** @description Version, state or capacity conflict: refetch and reconcile. Codes: `version_conflict`, `already_exists`, `transfer_changed`, `capacity_conflict`, `export_not_ready`, `creation_unavailable`, `space_required`, `case_required`, `case_unavailable`, `rerun_required`, `domain_not_verified`, `sso_not_configured`, `recovery_code_required`, `restore_window_closed`, `staff_of_another_organization`, `report_limit_reached`, `report_too_large`. */
        Error409: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error409"];
            };
        };
        /** @description Gone. Codes: `export_expired`. */
        Error410: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error410"];
            };
        };
        /** @description The body is larger than this route accepts. Codes: `payload_too_large`. */
        Error413: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error413"];
            };
        };
        /** @description The URL is too long. Codes: `uri_too_long`. */
        Error414: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error414"];
            };
        };
        /** @description The body is not sent as application/json. Codes: `unsupported_media_type`. */
        Error415: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error415"];
            };
        };
        /** @description Invalid input (body, query, path or header). Codes: `invalid_input`, `invalid_query`, `invalid_cve_selector`, `invalid_reference`, `personal_mailbox_domain`, `recovery_code_invalid`. */
        Error422: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error422"];
            };
        };
        /** @description A precondition header (If-Match) is required. Codes: `precondition_required`. */
        Error428: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error428"];
            };
        };
        /** @description Rate, cadence or concurrency limit: honor Retry-After. Codes: `rate_limited`, `background_busy`. */
        Error429: {
            headers: {
                /** @description seconds to wait before retrying */
                "Retry-After"?: number;
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error429"];
            };
        };
        /** @description Temporarily unavailable: retry later (honor Retry-After when present). Codes: `lookup_unavailable`, `sso_provider_unavailable`, `not_ready`. */
        Error503: {
            headers: {
                /** @description seconds to wait before retrying */
                "Retry-After"?: number;
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error503"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description the request's id: the caller's well-formed X-Request-Id, else a UUID */
        RequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    EventLogKeyController_key: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventLogKey"];
                };
            };
            400: components["responses"]["Error400"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
        };
    };
    ProtectedResourceController_api: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            400: components["responses"]["Error400"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
        };
    };
    ProtectedResourceController_mcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            400: components["responses"]["Error400"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
        };
    };
    OAuthAppsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizedApp"][];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OAuthAppsController_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the client_id GET /api/v2/auth/apps lists */
                clientId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    CreditsController_state: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreditState"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    CreditsController_usage: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreditUsage"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ApiKeysController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ApiKeysController_issue: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssueApiKeyBody"];
            };
        };
        responses: {
            /** @description Issued */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedApiKey"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ApiKeysController_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the API key id (after exr_) */
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    AuthSessionController_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoginBody"];
            };
        };
        responses: {
            /** @description Signed in: the session and CSRF cookies are set */
            200: {
                headers: {
                    /** @description __Host-ps (the session, HttpOnly) and __Host-pc (the CSRF token, readable by the page script) */
                    "Set-Cookie"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignedIn"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    AuthSessionController_logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out: the cookies are cleared */
            204: {
                headers: {
                    /** @description __Host-ps (the session, HttpOnly) and __Host-pc (the CSRF token, readable by the page script) */
                    "Set-Cookie"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    AuthSessionController_current: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current session */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CurrentSession"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSignInController_callback: {
        parameters: {
            query?: {
                /** @description the authorization code (from the provider) */
                code?: string;
                /** @description the provider's error, when sign-in failed there */
                error?: string;
                /** @description the provider's explanation of the error */
                error_description?: string;
                /** @description the issuer (from the provider) */
                iss?: string;
                /** @description the state the sign-in started with (from the provider) */
                state?: string;
            };
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed in: to return_to, with the session cookies */
            303: {
                headers: {
                    /** @description where the browser goes next */
                    Location?: string;
                    /** @description __Host-ps (the session, HttpOnly) and __Host-pc (the CSRF token, readable by the page script) */
                    "Set-Cookie"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSignInController_recovery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecoverySignInBody"];
            };
        };
        responses: {
            /** @description Signed in with the recovery code (used up) */
            200: {
                headers: {
                    /** @description __Host-ps (the session, HttpOnly) and __Host-pc (the CSRF token, readable by the page script) */
                    "Set-Cookie"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecoverySignIn"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSignInController_start: {
        parameters: {
            query?: {
                /** @description a path on this service to return to after sign-in (anything else returns to /) */
                return_to?: string;
            };
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the organization's OpenID Connect provider */
            302: {
                headers: {
                    /** @description where the browser goes next */
                    Location?: string;
                    /** @description __Host-sso: binds this browser to the started sign-in */
                    "Set-Cookie"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    AccessTokensController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessTokenSummary"][];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    AccessTokensController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateAccessTokenBody"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessToken"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    AccessTokensController_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the id GET /api/v2/auth/tokens lists */
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    CallerIpController_callerIp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CallerIp"];
                };
            };
            400: components["responses"]["Error400"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
        };
    };
    PersonalCreditsController_state: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreditState"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalSearchController_dataset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dataset searched */
                dataset: "hosts" | "dns" | "vhosts" | "whois";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DatasetSearchBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetSearchAnswer"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalEnrichmentController_badges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    items: ({
                        /** @description unique in the request, at most 256 UTF-8 bytes */
                        key: string;
                        /** @description the result record, at most 4 KiB; never trusted as evidence */
                        record?: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        type: "ip" | "host";
                        /** @description an IP address */
                        value: string;
                    } | {
                        /** @description unique in the request, at most 256 UTF-8 bytes */
                        key: string;
                        /** @description the result record, at most 4 KiB; never trusted as evidence */
                        record?: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        type: "domain" | "cert" | "whois" | "dns";
                        /** @description not blank, at most 1024 UTF-8 bytes */
                        value: string;
                    })[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BadgeEnrichment"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalEnrichmentController_vulnerabilities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description CPE 2.3 names (needs the CPE field entitlement, Enterprise) */
                    cpes?: string[];
                    /** @description a vulnerability_ref from search results: opaque, expires after 24 hours */
                    reference?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VulnerabilityEnrichment"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalSearchController_search: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchBody"];
            };
        };
        responses: {
            /** @description Server-Sent Events (stream omitted or true), or one JSON answer (stream: false) */
            200: {
                headers: {
                    /** @description with `stream: false`, when a dataset was busy: seconds before asking it again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchOutcome"];
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalSearchController_fields: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchFields"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalSearchController_more: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchMoreBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchMorePage"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    PersonalSearchController_quote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchMoreBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchMoreQuote"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportList"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_removeAll: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportsRemoved"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the export */
                exportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled (with the job) or deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportRemoved"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_download: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the export */
                exportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, in the format of the export */
            200: {
                headers: {
                    /** @description attachment; filename="export-<id>.<ext>" */
                    "Content-Disposition"?: string;
                    /** @description gzip when the request accepted it: the stored file is sent as is */
                    "Content-Encoding"?: "gzip";
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                    "text/csv": string;
                    "text/plain": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            410: components["responses"]["Error410"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_poll: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the export */
                exportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportJob"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dataset exported */
                searchType: "hosts" | "dns" | "whois" | "vhosts";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportRequestBody"];
            };
        };
        responses: {
            /** @description Accepted: the export runs in the background; poll it */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportCreated"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExportsController_estimate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dataset exported */
                searchType: "hosts" | "dns" | "whois" | "vhosts";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportEstimateBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportEstimate"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserSearchController_dataset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dataset searched */
                dataset: "hosts" | "dns" | "vhosts" | "whois";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DatasetSearchBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetSearchAnswer"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserEnrichmentController_badges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    items: ({
                        /** @description unique in the request, at most 256 UTF-8 bytes */
                        key: string;
                        /** @description the result record, at most 4 KiB; never trusted as evidence */
                        record?: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        type: "ip" | "host";
                        /** @description an IP address */
                        value: string;
                    } | {
                        /** @description unique in the request, at most 256 UTF-8 bytes */
                        key: string;
                        /** @description the result record, at most 4 KiB; never trusted as evidence */
                        record?: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        type: "domain" | "cert" | "whois" | "dns";
                        /** @description not blank, at most 1024 UTF-8 bytes */
                        value: string;
                    })[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BadgeEnrichment"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserEnrichmentController_vulnerabilities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description CPE 2.3 names (needs the CPE field entitlement, Enterprise) */
                    cpes?: string[];
                    /** @description a vulnerability_ref from search results: opaque, expires after 24 hours */
                    reference?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VulnerabilityEnrichment"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_removeAll: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportsRemoved"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the export */
                exportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled (with the job) or deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportRemoved"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_download: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the export */
                exportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, in the format of the export */
            200: {
                headers: {
                    /** @description attachment; filename="export-<id>.<ext>" */
                    "Content-Disposition"?: string;
                    /** @description gzip when the request accepted it: the stored file is sent as is */
                    "Content-Encoding"?: "gzip";
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                    "text/csv": string;
                    "text/plain": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            410: components["responses"]["Error410"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_poll: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the export */
                exportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportJob"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dataset exported */
                searchType: "hosts" | "dns" | "whois" | "vhosts";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportRequestBody"];
            };
        };
        responses: {
            /** @description Accepted: the export runs in the background; poll it */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportCreated"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserExportsController_estimate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the dataset exported */
                searchType: "hosts" | "dns" | "whois" | "vhosts";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportEstimateBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportEstimate"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserSearchController_search: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchBody"];
            };
        };
        responses: {
            /** @description Server-Sent Events (stream omitted or true), or one JSON answer (stream: false) */
            200: {
                headers: {
                    /** @description with `stream: false`, when a dataset was busy: seconds before asking it again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchOutcome"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserSearchController_fields: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchFields"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserSearchController_more: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchMoreBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchMorePage"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    BrowserSearchController_quote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchMoreBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchMoreQuote"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OperatorProjectionsController_projections: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorProjections"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateOrganizationBody"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_overview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_rename: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RenameOrganizationBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_log: {
        parameters: {
            query?: {
                /** @description only what this actor did: account:<id>, operator:<name> or system:<component> */
                actor?: string;
                /** @description the next_cursor of the previous page */
                after?: string;
                /** @description entries per page */
                limit?: number;
                /** @description from this time or global position (inclusive) */
                since?: string;
                /** @description only this event type */
                type?: string;
                /** @description up to this time or global position (inclusive) */
                until?: string;
            };
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationAuditLog"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_billing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BillingBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_cases: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CaseList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_openCase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OpenCaseBody"];
            };
        };
        responses: {
            /** @description Opened */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Case"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_caseDetail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the case */
                caseId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Case"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_archiveCase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the case */
                caseId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Case"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_space: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
            };
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_delete: {
        parameters: {
            query?: never;
            header: {
                /** @description the quoted version read from the resource ("3"); a stale one is 409, a missing one 428 */
                "If-Match": string;
            };
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeleteClientBody"];
            };
        };
        responses: {
            /** @description Deleted: access ends now, erasure after erase_after */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            428: components["responses"]["Error428"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_updateSpace: {
        parameters: {
            query?: never;
            header: {
                /** @description the quoted version read from the resource ("3"); a stale one is 409, a missing one 428 */
                "If-Match": string;
            };
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSpaceBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            428: components["responses"]["Error428"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_inventory: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
                /** @description an evaluation filter: coverage:<state>, result:<state>, decision:<state> or kind:<kind>; filter_options lists them with counts */
                filter?: "coverage:evaluated" | "coverage:no_identifiers" | "coverage:imprecise_identifiers" | "coverage:identifier_limit" | "coverage:not_evaluated" | "coverage:catalogue_unavailable" | "coverage:catalogue_incomplete" | "coverage:processing_error" | "coverage:shared_edge" | "result:kev" | "result:matched" | "result:no_match" | "result:indeterminate" | "decision:new" | "decision:investigating" | "decision:acknowledged" | "kind:service" | "kind:domain_expiry";
                /** @description host: services grouped by host */
                group_by?: "host";
                /** @description first subject (or host) of the page; pages are fixed at 100 */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Inventory"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_enrich: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the asset key of a service subject (its subject id) */
                assetKey: string;
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetEnrichment"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_controls: {
        parameters: {
            query?: {
                /** @description only the records of this asset */
                asset?: string;
            };
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ControlRecords"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_history: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
                /** @description first entry of the page (newest first); pages are fixed at 50 */
                offset?: number;
                /** @description only the history of this subject */
                subject?: string;
            };
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["History"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureReportingController_setMonitoring: {
        parameters: {
            query?: never;
            header?: {
                /** @description the quoted scope version; optional here (a blank one is 422) */
                "If-Match"?: string;
            };
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExposureMonitoringBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Monitoring"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureReportingController_preference: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationPreference"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureReportingController_savePreference: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NotificationPreferenceBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationPreference"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureReportingController_list: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReportList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureReportingController_freeze: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Frozen */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReportSummary"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureReportingController_document: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
                /** @description the frozen report */
                reportId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The saved document */
            200: {
                headers: {
                    /** @description "sha256-<hex>": the SHA-256 the frozen report recorded */
                    ETag?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReportDocument"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_run: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunBody"];
            };
        };
        responses: {
            /** @description This key already ran: its earlier run */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefreshRun"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            /** @description Accepted: a new refresh runs in the background */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RefreshRun"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_decide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
                /** @description the inventory subject */
                subjectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecisionBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subject"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_timezone: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TimezoneBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExposureScope"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_monitoring: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MonitoringBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_published: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublishedView"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_restore: {
        parameters: {
            query?: never;
            header: {
                /** @description the quoted version read from the resource ("3"); a stale one is 409, a missing one 428 */
                "If-Match": string;
            };
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Restored: the client is archived */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExposureScope"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            428: components["responses"]["Error428"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_share: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Share"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_revokeShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the space: a client or an exposure scope */
                clientId: string;
                /** @description the organization */
                orgId: string;
                /** @description the guest share link */
                shareId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_deleted: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedClientList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_prepareComparison: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrepareComparisonBody"];
            };
        };
        responses: {
            /** @description Prepared */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comparison"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_comparison: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the comparison */
                comparisonId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comparison"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_publishComparison: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the comparison */
                comparisonId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comparison"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_context: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionContext"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_select: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SelectContextBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionContext"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_credits: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
            };
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationCredits"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_saveEvidence: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SaveEvidenceBody"];
            };
        };
        responses: {
            /** @description Saved */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Evidence"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_evidence: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the evidence item */
                evidenceId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Evidence"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    ExposureController_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateExposureScopeBody"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExposureScope"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_invite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvitationBody"];
            };
        };
        responses: {
            /** @description Invited */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvitationSent"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_accept: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the invitation */
                invitationId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A member now: the organization, or where staff sign in (SSO) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedInvitation"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_members: {
        parameters: {
            query?: {
                /** @description for auditors: the answer as it was then, replayed from the event log (an ISO-8601 time with a zone, or a global position) */
                as_of?: string;
            };
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_removeMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the member account */
                accountId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_updateMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the member account */
                accountId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateMemberBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_assign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the member account */
                accountId: string;
                /** @description the organization */
                orgId: string;
                /** @description the space */
                spaceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Assigned */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_unassign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the member account */
                accountId: string;
                /** @description the organization */
                orgId: string;
                /** @description the space */
                spaceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unassigned */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_offerOwnership: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OwnershipOfferBody"];
            };
        };
        responses: {
            /** @description Offered: the recipient must accept */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OwnershipOffered"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_acceptOwnership: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_declineOwnership: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_reviewQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReviewQueue"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_addReviewItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AddReviewItemBody"];
            };
        };
        responses: {
            /** @description Queued */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_updateReviewItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the review queue item */
                itemId: string;
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateReviewItemBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReviewItem"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_spaces: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SpaceList"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_createSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSpaceBody"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Space"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSettingsController_settings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoSettings"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSettingsController_configure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConfigureSsoBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoSettings"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSettingsController_setEnforcement: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EnforcementBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoSettings"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSettingsController_issueRecoveryCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Issued: the code is in this answer only */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedRecoveryCode"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSettingsController_acknowledgeRecoveryCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoSettings"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    SsoSettingsController_testRecoveryCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecoveryCodeBody"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoSettings"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_switchTo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionSwitched"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_verify: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the organization */
                orgId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            414: components["responses"]["Error414"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    OrganizationsController_preview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreationPreview"] & {
                        service_credits?: components["schemas"]["ServiceCredits"];
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            503: components["responses"]["Error503"];
        };
    };
    HealthController_live: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process answers */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Liveness"];
                };
            };
            400: components["responses"]["Error400"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
        };
    };
    HealthController_ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready: storage answers and every projection is live */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            400: components["responses"]["Error400"];
            414: components["responses"]["Error414"];
            422: components["responses"]["Error422"];
            /** @description Not ready yet: the checks say what is missing */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
}

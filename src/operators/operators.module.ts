import { Module } from '@nestjs/common';
import { OPERATOR_AUTHENTICATOR, type OperatorAuthenticator } from '../platform/auth/access.js';
import { OperatorRefused } from '../platform/cli/operator-access.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { ServiceContext } from '../platform/service-context.js';
import { operatorCommandHandlers } from './commands/operator.handlers.js';
import { OperatorProjectionsController } from './http/operator-projections.controller.js';
import { authenticateOperator } from './operator-access.js';
import { OperatorCredentialTable } from './operator-credential-table.js';

/**
 * Operators and their credentials (ADR 68). Operators act through the CLI; the one route is read-only
 * (GET /api/v2/operator/projections, ADR 119), on the credential the CLI uses.
 */
@Module({
  controllers: [OperatorProjectionsController],
  providers: [
    {
      provide: OperatorCredentialTable,
      inject: [READ_STORE],
      useFactory: (readStore: ReadStore) => new OperatorCredentialTable(readStore),
    },
    {
      provide: OPERATOR_AUTHENTICATOR,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext): OperatorAuthenticator => ({
        authenticate: async (credential) => {
          try {
            return await authenticateOperator(context, credential);
          } catch (error) {
            // The CLI's refusal (malformed, unknown, revoked), answered as the HTTP refusal of a bad credential.
            if (error instanceof OperatorRefused) throw new ServiceError('unauthenticated', error.message);
            throw error;
          }
        },
      }),
    },
    ...operatorCommandHandlers,
  ],
  exports: [OPERATOR_AUTHENTICATOR],
})
export class OperatorsModule {}

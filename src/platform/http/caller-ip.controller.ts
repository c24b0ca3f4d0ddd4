import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Access } from '../auth/access.js';
import { ApiJson } from './openapi/responses.js';
import { CALLER_IP } from './platform.openapi.js';

/** The public caller-IP route (contract, Authentication 9: unauthenticated; its path is ours to choose). */
@ApiTags('common')
@Controller('api/v2/common/caller-ip')
export class CallerIpController {
  @Get()
  @Access({ surface: 'public', permission: 'caller.ip' })
  @ApiOperation({ summary: 'The address this request came from, as the service saw it' })
  @ApiJson(200, CALLER_IP)
  callerIp(@Req() request: FastifyRequest): { ip: string } {
    return { ip: request.ip };
  }
}

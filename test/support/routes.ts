import { RequestMethod, type INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from '../../src/platform/auth/access.js';

/** A route as Nest registers it, with the access rule the guard will read. */
export interface DiscoveredRoute {
  readonly method: string;
  readonly path: string;
  readonly rule: AccessRule | undefined;
  /** `Controller.handler`, to point at the code in failure messages. */
  readonly source: string;
}

/**
 * Every route of every controller in the application, read from the same metadata Nest routes with, sorted by
 * method and path. The app must include `DiscoveryModule`.
 */
export function discoverRoutes(app: INestApplication): DiscoveredRoute[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = new Reflector();
  const routes: DiscoveredRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const { metatype, instance } = wrapper as { metatype: unknown; instance: unknown };
    if (typeof metatype !== 'function' || typeof instance !== 'object' || instance === null) continue;
    const controllerPaths = pathList(Reflect.getMetadata(PATH_METADATA, metatype));
    for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(instance) as object)) {
      const handler = (instance as Record<string, unknown>)[name];
      if (typeof handler !== 'function') continue;
      const handlerPaths: unknown = Reflect.getMetadata(PATH_METADATA, handler);
      if (handlerPaths === undefined) continue; // not a route handler
      const methodCode: unknown = Reflect.getMetadata(METHOD_METADATA, handler);
      const method = RequestMethod[(methodCode ?? RequestMethod.GET) as RequestMethod];
      const rule = reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
        handler as (...args: unknown[]) => unknown,
        metatype as new (...args: unknown[]) => unknown,
      ]);
      for (const prefix of controllerPaths) {
        for (const suffix of pathList(handlerPaths)) {
          routes.push({ method, path: joinPath(prefix, suffix), rule, source: `${metatype.name}.${name}` });
        }
      }
    }
  }
  return routes.sort((a, b) => routeKey(a).localeCompare(routeKey(b)));
}

export const routeKey = (route: { method: string; path: string }): string => `${route.method} ${route.path}`;

function pathList(value: unknown): string[] {
  if (value === undefined) return [''];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function joinPath(...parts: string[]): string {
  const segments = parts.map((part) => part.replace(/^\/+|\/+$/g, '')).filter((part) => part.length > 0);
  return `/${segments.join('/')}`;
}

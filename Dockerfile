# syntax=docker/dockerfile:1

# ---- build: install everything, compile TypeScript, then drop the dev dependencies ----------------------------
FROM node:24-slim AS build
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
# --ignore-scripts: no install script is needed to compile or run (skips the `node` dev package's binary
# download); swc's native compiler comes in its per-platform package, which needs no script.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json .swcrc ./
COPY src ./src
COPY projections ./projections
COPY bench ./bench
COPY console ./console
COPY scripts/console-build.mjs ./scripts/console-build.mjs
# The `node` dev dependency (a pinned Node binary for local use) is not installed without its scripts: drop its
# bin shim so `npm run build` uses this image's Node 24 instead of a dangling link.
RUN rm -f node_modules/.bin/node \
 && npm run build:all \
 && npm prune --omit=dev --ignore-scripts

# ---- runtime: compiled code and production dependencies only, as a non-root user ----------------------------
FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The data directory belongs to the unprivileged `node` user (uid 1000) that ships with the image; a named
# volume mounted there starts with this ownership.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]

# syntax=docker/dockerfile:1
# One image for every role (ROLE=api|ws, see helm/messaging). Built from the repository root:
#   docker build -t messaging-service:$(git rev-parse --short HEAD) .
# Node is pinned to the exact release the project is tested on (the native uWebSockets.js build
# is for Node 20 only); pin the digest too in your registry mirror.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# Build: every dependency (TypeScript), the committed generated code in src/gen, compile, then
# drop the dev dependencies so that only production ones are copied on.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The client SDK is a workspace of the package: npm ci needs its manifest.
COPY client/package.json ./client/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The reference web app (/app/) is bundled with the SDK into dist/web-app by `npm run build`.
COPY client ./client
COPY scripts/build-web-app.mjs ./scripts/
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Run: production dependencies and compiled output only, as an unprivileged user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/var/lib/messaging
WORKDIR /app
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --no-create-home --shell /usr/sbin/nologin app \
    && mkdir -p /var/lib/messaging && chown app:app /var/lib/messaging
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The default sticker pack (STICKERS_DIR unset), found next to dist/.
COPY assets ./assets
USER 10001:10001
EXPOSE 8080 8081
# Liveness of the process on its HTTP port (Kubernetes uses its own probes, see the chart).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]

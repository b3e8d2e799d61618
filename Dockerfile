# watchkeeper: build on the same Debian/glibc base as the runtime (better-sqlite3 is a native addon).
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm ci compiles better-sqlite3 from source and runs `prepare` (tsc -> dist/).
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    WATCHKEEPER_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/views ./views
COPY --from=build /app/public ./public
COPY --from=build /app/prompts ./prompts
COPY --from=build /app/demo ./demo
# The Claude CLI refuses to run unattended as root: everything runs as the image's `node` user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.WATCHKEEPER_PORT || 8080) + '/api/v1/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/watchkeeper.js"]
CMD ["serve"]

# watchkeeper. Node 26 is the current LTS and better-sqlite3 12.x supports it (package.json
# `engines` still allows Node 20 outside the image). Built on the same Debian (13, trixie) as the
# runtime: better-sqlite3 is a native addon.
FROM node:26-trixie-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm ci compiles better-sqlite3 from source and runs `prepare` (tsc -> dist/, vendored htmx).
RUN npm ci && npm prune --omit=dev

FROM node:26-trixie-slim
# What the agent looks at infrastructure with: ssh, curl, jq, dig/nslookup, the docker client
# (Debian's docker-cli, no daemon: mount the host's socket to use it; see README, Docker), git, gh
# and python3, as the Claude Ops image had. apprise delivers CLAUDEOPS_APPRISE_URLS (outside the
# image, without the command, watchkeeper's built-in targets deliver what they can). tini is PID 1:
# it passes SIGTERM on to watchkeeper and reaps the orphans a session's tools leave behind.
# To add tools (kubectl, ansible...), build FROM this image: README, Docker, "More tools".
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      tini ca-certificates openssh-client curl jq bind9-dnsutils docker-cli \
      git gh python3 apprise \
 && rm -rf /var/lib/apt/lists/*
# WATCHKEEPER_DEFAULT_DATA_DIR is a default only (WATCHKEEPER_DATA_DIR or CLAUDEOPS_STATE_DIR
# wins): /state when a Claude Ops compose file mounts its ./state there, else the /data volume. Inside a container the dashboard listens on every interface, and so
# refuses to start without WATCHKEEPER_AUTH_TOKEN (or CLAUDEOPS_CHAT_API_KEY). The port is the
# default 8080 (WATCHKEEPER_PORT or CLAUDEOPS_DASHBOARD_PORT moves it).
ENV NODE_ENV=production \
    WATCHKEEPER_DEFAULT_DATA_DIR=/state,/data \
    WATCHKEEPER_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/views ./views
COPY --from=build /app/public ./public
COPY --from=build /app/prompts ./prompts
COPY --from=build /app/runbooks ./runbooks
COPY --from=build /app/demo ./demo
# The Claude CLI refuses to run unattended as root: everything runs as the image's `node` user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.WATCHKEEPER_PORT || process.env.CLAUDEOPS_DASHBOARD_PORT || 8080) + '/api/v1/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/watchkeeper.js"]
CMD ["serve"]

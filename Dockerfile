# Runs the API, the Temporal worker, or both (ROLE=api|worker|all) from the TypeScript sources:
# Node 24 strips the types itself, so the service has no build step (only the dashboard's bundle, below).
FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so source edits reuse this layer. Without scripts: the project's own (`prepare`, the
# dashboard build) needs the sources, built below; no production dependency's script is allowed anyway
# (package.json `allowScripts`).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

COPY . .
# The dashboard's bundle (web/ → dist/dashboard/): the install above ran before the sources were here.
RUN node scripts/build-dashboard.ts

USER node
EXPOSE 3000
CMD ["node", "src/main.ts"]

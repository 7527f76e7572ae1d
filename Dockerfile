# Runs the API, the Temporal worker, or both (ROLE=api|worker|all) from the TypeScript sources:
# Node 24 strips the types itself, so there is no build step.
FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so source edits reuse this layer.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY . .

USER node
EXPOSE 3000
CMD ["node", "src/main.ts"]

# One image for every process kind; compose.yaml picks the command (gateway, worker, migrate).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY contracts ./contracts
COPY runtime ./runtime
COPY gateway ./gateway
COPY workers ./workers
COPY plugins ./plugins
COPY bin ./bin
USER node
EXPOSE 8080
# Node receives signals directly (no npm in between), so SIGTERM drains requests and jobs.
CMD ["node", "--import", "tsx", "bin/gateway.ts"]

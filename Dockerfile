# One image for every process kind; compose.yaml picks the command (gateway, worker, migrate).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# LibreOffice Writer and its UNO bridge turn exported documents into PDF, poppler draws PDF pages
# as PNG, the Droid fallback font sets Chinese text.
RUN apt-get update \
  && apt-get install -y --no-install-recommends libreoffice-writer-nogui python3-uno poppler-utils fonts-droid-fallback fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Run by npm ci's postinstall: corrects the database client's connection queue.
COPY bin/patch-dependencies.ts ./bin/
RUN npm ci --omit=dev && npm cache clean --force
COPY contracts ./contracts
COPY runtime ./runtime
COPY identity ./identity
COPY directory ./directory
COPY tenant ./tenant
COPY notifications ./notifications
COPY push ./push
COPY seals ./seals
COPY files ./files
COPY exports ./exports
COPY workflow ./workflow
COPY gateway ./gateway
COPY workers ./workers
COPY plugins ./plugins
COPY bin ./bin
# The sample files bootstrap.example.json names (the seal image) and the README's walkthrough uses.
COPY examples ./examples
# The processes run built (bin/launch.mjs); built here, as the node user could not write it later.
RUN node bin/launch.mjs --build
USER node
EXPOSE 8080
# Node receives signals directly (no npm in between), so SIGTERM drains requests and jobs.
CMD ["node", "bin/launch.mjs", "bin/gateway.ts"]

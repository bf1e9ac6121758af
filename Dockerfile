# cpln-local as a container image: the npm package `cpln-local` assembled from this repository's build
# (scripts/release-packages.mjs), installed with its production dependencies (better-sqlite3 compiles here when no
# prebuilt binary matches), on Node 20. The admin key comes from CPLN_TOKEN (or a new one is printed at start).
#   docker build -t cpln-local .
#   docker run --rm -p 8080:8080 -e CPLN_TOKEN -v cpln-data:/data cpln-local
# (`-e CPLN_TOKEN` passes the variable by name, so the key is on no command line.)
# BASE is the image every stage starts from: the public Node 20 image unless a build names another one with the
# same layout (scripts/image.sh builds one from Debian's and this machine's packages when no registry is reachable).
ARG BASE=node:20-bookworm-slim
FROM ${BASE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && node scripts/release-packages.mjs --out /packages

FROM ${BASE} AS install
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY --from=build /packages/ /packages/
RUN npm install -g --omit=dev --no-audit --no-fund /packages/cpln-local-*.tgz

FROM ${BASE}
COPY --from=install /usr/local/lib/node_modules/cpln-local /usr/local/lib/node_modules/cpln-local
RUN ln -s ../lib/node_modules/cpln-local/dist/server/cli.js /usr/local/bin/cpln-local \
  && mkdir /data && chown node:node /data
USER node
EXPOSE 8080
VOLUME /data
ENTRYPOINT ["cpln-local", "--host", "0.0.0.0", "--port", "8080"]
CMD ["--data", "/data/cpln-local.db"]

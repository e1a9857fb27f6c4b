#!/usr/bin/env bash
# The steps of the evalsig GitHub Action (action.yml):
#   gate-action.sh install   install evalsig (the evalsig-stats distribution): from PyPI, or the
#                            action's own copy
#   gate-action.sh gate      run `evalsig gate`, write the job summary and the step outputs,
#                            post or update one comment on the pull request, and exit with
#                            the gate's status
# Every input arrives in an EVALSIG_* environment variable, never in the script's text, and
# is passed on as quoted arguments: nothing an input holds is evaluated by the shell.
set -euo pipefail

# A workflow command (::error:: or ::warning::) whose text cannot start another command.
annotate() {
  local kind=$1
  shift
  local text="$*"
  text=${text//'%'/'%25'}
  text=${text//$'\r'/'%0D'}
  text=${text//$'\n'/'%0A'}
  printf '::%s::%s\n' "$kind" "$text"
}

usage_error() {
  annotate error "$@"
  exit 2
}

# Input $1 (its value $2) must hold one of the values that follow.
one_of() {
  local name=$1 value=$2 choice
  shift 2
  for choice in "$@"; do
    [[ $value == "$choice" ]] && return 0
  done
  usage_error "input '$name' is '$value'; give one of: $*."
}

required() {
  [[ -n $2 ]] || usage_error "input '$1' is empty; give the $3."
}

install() {
  local version=${EVALSIG_VERSION:-} pip=(python -m pip install --disable-pip-version-check)
  one_of install-from "${EVALSIG_INSTALL_FROM:-}" pypi action
  if [[ $EVALSIG_INSTALL_FROM == action ]]; then
    [[ -z $version ]] || usage_error "inputs 'install-from: action' and 'evalsig-version:" \
      "$version' disagree (the action's own copy has the action's version); drop one."
    "${pip[@]}" "${GITHUB_ACTION_PATH:?is not set}"
  elif [[ -z $version ]]; then
    "${pip[@]}" evalsig-stats
  elif [[ $version =~ ^[0-9][0-9A-Za-z.+!-]*$ ]]; then
    "${pip[@]}" "evalsig-stats==$version"
  else
    usage_error "input 'evalsig-version' is '$version'; give a released version such as" \
      "0.4.1, or leave it empty for the newest."
  fi
}

# Post the file $2 on pull request $1, or edit the earlier comment that starts with the
# marker $3 (so that reruns update one comment).
post_comment() {
  local api="repos/$GITHUB_REPOSITORY" ids
  ids=$(gh api --paginate "$api/issues/$1/comments" \
    --jq ".[] | select((.body // \"\") | startswith(\"$3\")) | .id") || return 1
  if [[ -n $ids ]]; then
    gh api --method PATCH "$api/issues/comments/${ids%%$'\n'*}" -F "body=@$2" >/dev/null
  else
    gh api --method POST "$api/issues/$1/comments" -F "body=@$2" >/dev/null
  fi
}

# The verdict on the pull request of this event. Nothing here fails the job: a pull request
# from a fork gets a read-only token, and the verdict is in the job summary anyway.
comment() {
  local markdown=$1 marker=$2 folder=$3 number
  number=$(python -c 'import json, sys
print(json.load(open(sys.argv[1], encoding="utf-8"))["pull_request"]["number"])' \
    "${GITHUB_EVENT_PATH:-}" 2>/dev/null) || number=
  if [[ ! $number =~ ^[0-9]+$ || -z ${GITHUB_REPOSITORY:-} ]]; then
    annotate warning "no pull request number in the event file" \
      "'${GITHUB_EVENT_PATH:-}' or no repository name: no comment posted; the verdict is in" \
      "the job summary."
    return 0
  fi
  if ! command -v gh >/dev/null; then
    annotate warning "the gh command is not installed: no comment posted on pull request" \
      "#$number; the verdict is in the job summary."
    return 0
  fi
  { printf '%s\n' "$marker" && cat "$markdown"; } >"$folder/comment.md"
  if post_comment "$number" "$folder/comment.md" "$marker" 2>"$folder/gh.txt"; then
    echo "verdict posted on pull request #$number"
  else
    annotate warning "could not comment on pull request #$number ($(tr '\n' ' ' \
      <"$folder/gh.txt")): a pull request from a fork gets a read-only token, and the" \
      "workflow needs 'permissions: pull-requests: write' to comment (or set 'comment:" \
      "false'). The verdict is in the job summary."
  fi
}

gate() {
  one_of comment "${EVALSIG_COMMENT:-}" true false
  one_of fail-on "${EVALSIG_FAIL_ON:-}" fail inconclusive
  one_of allow-changed-policy "${EVALSIG_ALLOW_CHANGED_POLICY:-}" true false
  required baseline "${EVALSIG_BASELINE:-}" "baseline results (a file, a folder or a glob)"
  required candidate "${EVALSIG_CANDIDATE:-}" "candidate results (a file, a folder or a glob)"
  required policy "${EVALSIG_POLICY:-}" "gate policy file (YAML or JSON)"
  local key=${EVALSIG_COMMENT_KEY:-}
  [[ $key =~ ^[A-Za-z0-9._-]*$ ]] ||
    usage_error "input 'comment-key' is '$key'; use letters, digits, '.', '_' and '-' only."

  local args=(gate --policy "$EVALSIG_POLICY") value extra=()
  [[ -z ${EVALSIG_REGISTRATION:-} ]] || args+=(--registration "$EVALSIG_REGISTRATION")
  [[ $EVALSIG_ALLOW_CHANGED_POLICY == false ]] || args+=(--allow-changed-policy)
  [[ -z ${EVALSIG_TASK_COLUMN:-} ]] || args+=(--task-column "$EVALSIG_TASK_COLUMN")
  [[ -z ${EVALSIG_METRIC:-} ]] || args+=(--metric "$EVALSIG_METRIC")
  [[ -z ${EVALSIG_FILTER:-} ]] || args+=(--filter "$EVALSIG_FILTER")
  [[ -z ${EVALSIG_INPUT_FORMAT:-} ]] || args+=(--input-format "$EVALSIG_INPUT_FORMAT")
  [[ -z ${EVALSIG_SEED:-} ]] || args+=(--seed "$EVALSIG_SEED")
  while IFS= read -r value; do # one COLUMN=VALUE a line
    value=${value%$'\r'}
    [[ -z $value ]] || args+=(--where "$value")
  done <<<"${EVALSIG_WHERE:-}"
  read -r -d '' -a extra <<<"${EVALSIG_ARGS:-}" || true # split on white space, nothing else
  for value in ${extra[@]+"${extra[@]}"}; do
    case $value in
      -o | -o* | --output | --output=* | --format | --format=*)
        usage_error "input 'args' holds '$value': the action writes the verdict in markdown" \
          "itself (its path is the output 'markdown'); remove it." ;;
    esac
  done

  local folder markdown code=0 verdict
  folder=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/evalsig-gate.XXXXXX")
  markdown=$folder/gate.md
  evalsig "${args[@]}" ${extra[@]+"${extra[@]}"} --format markdown --output "$markdown" \
    -- "$EVALSIG_BASELINE" "$EVALSIG_CANDIDATE" 2>"$folder/stderr.txt" || code=$?
  cat "$folder/stderr.txt" >&2
  case $code in
    0) verdict=PASS ;;
    1) verdict=FAIL ;;
    3) verdict=INCONCLUSIVE ;;
    *) verdict=ERROR ;;
  esac
  if [[ $verdict == ERROR || ! -s $markdown ]]; then
    verdict=ERROR
    {
      printf '### Release gate: **ERROR**\n\n'
      # shellcheck disable=SC2016 # backticks: markdown code, not a command
      printf '`evalsig gate` stopped with exit code %s, before a verdict:\n\n' "$code"
      tail -n 40 "$folder/stderr.txt" | sed 's/^/    /'
    } >"$markdown"
  fi
  [[ -z ${GITHUB_STEP_SUMMARY:-} ]] || cat "$markdown" >>"$GITHUB_STEP_SUMMARY"
  [[ -z ${GITHUB_OUTPUT:-} ]] ||
    printf 'verdict=%s\nexit-code=%s\nmarkdown=%s\n' "$verdict" "$code" "$markdown" \
      >>"$GITHUB_OUTPUT"

  case "$EVALSIG_COMMENT:${GITHUB_EVENT_NAME:-}" in
    true:pull_request | true:pull_request_target)
      comment "$markdown" "<!-- evalsig-gate${key:+:$key} -->" "$folder" ;;
    true:*) echo "not a pull request event ('${GITHUB_EVENT_NAME:-}'): no comment posted" ;;
  esac

  case $verdict in
    PASS) ;;
    INCONCLUSIVE)
      if [[ $EVALSIG_FAIL_ON == fail ]]; then
        annotate warning "release gate INCONCLUSIVE (see the job summary); the job passes" \
          "because of 'fail-on: fail'."
      else
        annotate error "release gate INCONCLUSIVE: the data cannot resolve every claim (see" \
          "the job summary); 'fail-on: fail' would let the job pass."
        exit "$code"
      fi
      ;;
    FAIL)
      annotate error "release gate FAIL (see the job summary)."
      exit "$code"
      ;;
    *)
      annotate error "evalsig gate stopped with exit code $code:" \
        "$(tail -n 1 "$folder/stderr.txt")"
      exit $((code == 0 ? 1 : code))
      ;;
  esac
}

case "${1:-}" in
  install) install ;;
  gate) gate ;;
  *)
    echo "usage: gate-action.sh install|gate (the steps of action.yml)" >&2
    exit 2
    ;;
esac

# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_sselint_global_optspecs
    string join \n h/help V/version
end

function __fish_sselint_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_sselint_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_sselint_using_subcommand
    set -l cmd (__fish_sselint_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c sselint -n "__fish_sselint_needs_command" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_needs_command" -s V -l version -d 'Print version'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "check" -d 'Lint captures: raw SSE bodies, curl dumps, HAR files, directories'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "inspect" -d 'Show every event of a stream with its kind and findings, then the reconstructed answer'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "rules" -d 'List the rule catalogue'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "rule" -d 'Explain one rule (by name or code) with its examples'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "diff" -d 'Compare two streams point by point (answer, tool calls, shape, fields, findings, timing); two dialects on what both have'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "record" -d 'Record a live stream to HAR (per-read timing, secrets redacted), linting it as it arrives'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "replay" -d 'Serve a capture at its dialect\'s endpoint (/v1/chat/completions, /v1/responses, /v1/messages, a Gemini model\'s :streamGenerateContent, Ollama\'s /api/chat or Bedrock\'s /model/ID/converse-stream), with fault injection (delays, split writes, keep-alives, a dropped connection, a bad frame CRC)'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "probe" -d 'Send a set of streaming scenarios (plain, usage, length, tool, n: 2, an invalid request, a client disconnect, …) to a live endpoint, save and lint each capture with its request, and print a report card'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "proxy" -d 'Forward an application\'s LLM requests to their upstreams, byte for byte, and lint every stream as it passes; with `-- CMD`, run the command through it and gate on the streams it made'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "redact" -d 'Write a shareable copy of a capture: secrets removed, and with --scrub-text the prompt and answer text replaced'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "minimize" -d 'Cut a capture down to the smallest one that still gives its findings (events, fields inside them, headers), redacted'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "init" -d 'Write a commented sselint.toml to start from'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell)'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "man" -d 'Print the man page (roff, section 1)'
complete -c sselint -n "__fish_sselint_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sselint -n "__fish_sselint_using_subcommand check" -l format -d 'Output format on stdout (or --output)' -r -f -a "human\t''
json\t''
sarif\t''
junit\t''
github\t''
html\t'A self-contained page (write it with -o and open it in a browser)'
jsonl\t'One JSON line per stream or log record, written as it goes'"
complete -c sselint -n "__fish_sselint_using_subcommand check" -s o -l output -d 'Write the report to FILE (atomically; a FIFO or device is written through) instead of stdout; `-` is stdout' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand check" -l report -d 'Also write FORMAT to FILE (repeatable), e.g. `--report sarif=out.sarif`; the terminal still gets the main report (so FILE cannot be `-`)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l profile -d 'Provider profile (`sselint rules --profiles` lists them); default from sselint.toml, else `openai`' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l select -d 'Run only these rules (names, codes or groups, comma-separated)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l ignore -d 'Skip these rules (names, codes or groups, comma-separated)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l fail-on -d 'Exit 1 when a finding reaches this severity [default: error, or sselint.toml\'s fail-on]' -r -f -a "error\t'Errors fail the run'
warning\t'Warnings and errors'
info\t'Any finding'
never\t'Never fail on findings'"
complete -c sselint -n "__fish_sselint_using_subcommand check" -l config -d 'Configuration file (default: sselint.toml found upward)' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand check" -l baseline -d 'Findings recorded in FILE do not count toward --fail-on' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand check" -l write-baseline -d 'Record the current findings in FILE (atomically) as a baseline' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand check" -s j -l jobs -d 'Worker threads (default: all cores)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l input-format -d 'Input format; detected from the first bytes by default. `jsonl` (check only): a gateway log, one JSON record per line with `id`, `status`, `headers`, `path` and `body` (or `body_base64`)' -r -f -a "auto\t''
sse\t''
curl\t''
har\t''
jsonl\t''"
complete -c sselint -n "__fish_sselint_using_subcommand check" -l entry -d 'HAR: lint only entry N (0-based index in log.entries)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l url-match -d 'HAR: lint only entries whose URL contains TEXT' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l max-decoded-bytes -d 'The largest size a gzip/deflate/br body may decode to, in bytes [default: 512 MiB]' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l dialect -d 'The stream format: told from the request path (HAR, curl -v, record) and the events by default; `chat` (Chat Completions), `responses` (OpenAI Responses), `messages` (Anthropic Messages), `gemini` (Google Gemini\'s streamGenerateContent), `ollama` (Ollama\'s native API, NDJSON), `bedrock-converse` (Amazon Bedrock\'s ConverseStream, AWS event-stream frames), `bedrock-invoke` (Bedrock\'s InvokeModelWithResponseStream: the model\'s own events, Claude\'s, Nova\'s, Titan\'s, Llama\'s or Mistral\'s, in base64 chunks) or `realtime` (OpenAI\'s Realtime API, a WebSocket) reads every stream as that one' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand check" -l stall-ms -d 'Gaps between events longer than this are `stall` findings' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l max-event-bytes -d 'The largest event read, in bytes [default: 16 MiB, or sselint.toml\'s max-event-bytes]' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l color -d 'Colour' -r -f -a "auto\t'When stdout is a terminal, unless NO_COLOR is set or TERM=dumb'
always\t'Always (also CLICOLOR_FORCE=1)'
never\t'Never'"
complete -c sselint -n "__fish_sselint_using_subcommand check" -l body -d 'The request body (JSON); `"stream": true` is forced' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand check" -s H -l header -d 'An extra request header, `Name: value` (repeatable)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l api-key-env -d 'Environment variable holding the API key, sent as `Authorization: Bearer …`, as `x-api-key` to an Anthropic Messages endpoint, or as `x-goog-api-key` to a Gemini one (a Bearer token to Vertex AI\'s project paths; a Bedrock API key as a Bearer token); never printed, never saved. Without it, a Bedrock request is signed with SigV4 from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION (or AWS_DEFAULT_REGION, else the host\'s region)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l timeout -d 'Stop after this many seconds (what arrived is kept)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l read-timeout -d 'Stop when nothing arrives for this many seconds (what arrived is kept)' -r
complete -c sselint -n "__fish_sselint_using_subcommand check" -l no-config -d 'Ignore any sselint.toml'
complete -c sselint -n "__fish_sselint_using_subcommand check" -s v -l verbose -d 'Show info findings too'
complete -c sselint -n "__fish_sselint_using_subcommand check" -s q -l quiet -d 'Only summary lines'
complete -c sselint -n "__fish_sselint_using_subcommand check" -l no-usage -d 'Do not add `stream_options.include_usage` (Chat Completions only; Responses, Messages and Gemini streams carry usage unasked)'
complete -c sselint -n "__fish_sselint_using_subcommand check" -l insecure -d 'Accept any TLS certificate'
complete -c sselint -n "__fish_sselint_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l format -d '`human` (the table, for people; `table` is another name for it), `jsonl` for one JSON record per line, `html` for a self-contained page (with -o, a file to open in a browser)' -r -f -a "human\t'The table, as `check`\'s `human` is its terminal report'
jsonl\t''
html\t''"
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -s o -l output -d 'Write the report to FILE (atomically; a FIFO or device is written through) instead of stdout; `-` is stdout; never the input' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l profile -d 'Provider profile [default: sselint.toml\'s, else openai]' -r
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l max-event-bytes -d 'The largest event read, in bytes [default: 16 MiB, or sselint.toml\'s max-event-bytes]' -r
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l stall-ms -d 'Gaps between events longer than this are `stall` findings, shaded on the HTML timeline (as `check --stall-ms`)' -r
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l input-format -d 'Input format; detected from the first bytes by default. `jsonl` (check only): a gateway log, one JSON record per line with `id`, `status`, `headers`, `path` and `body` (or `body_base64`)' -r -f -a "auto\t''
sse\t''
curl\t''
har\t''
jsonl\t''"
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l entry -d 'HAR: lint only entry N (0-based index in log.entries)' -r
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l url-match -d 'HAR: lint only entries whose URL contains TEXT' -r
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l max-decoded-bytes -d 'The largest size a gzip/deflate/br body may decode to, in bytes [default: 512 MiB]' -r
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l dialect -d 'The stream format: told from the request path (HAR, curl -v, record) and the events by default; `chat` (Chat Completions), `responses` (OpenAI Responses), `messages` (Anthropic Messages), `gemini` (Google Gemini\'s streamGenerateContent), `ollama` (Ollama\'s native API, NDJSON), `bedrock-converse` (Amazon Bedrock\'s ConverseStream, AWS event-stream frames), `bedrock-invoke` (Bedrock\'s InvokeModelWithResponseStream: the model\'s own events, Claude\'s, Nova\'s, Titan\'s, Llama\'s or Mistral\'s, in base64 chunks) or `realtime` (OpenAI\'s Realtime API, a WebSocket) reads every stream as that one' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -l color -d 'Colour' -r -f -a "auto\t'When stdout is a terminal, unless NO_COLOR is set or TERM=dumb'
always\t'Always (also CLICOLOR_FORCE=1)'
never\t'Never'"
complete -c sselint -n "__fish_sselint_using_subcommand inspect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sselint -n "__fish_sselint_using_subcommand rules" -l profiles -d 'List the provider profiles instead'
complete -c sselint -n "__fish_sselint_using_subcommand rules" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand rule" -l format -d '`human` for a terminal; `markdown` writes the rule\'s page of the book (docs/rules/NAME.md)' -r -f -a "human\t''
markdown\t''"
complete -c sselint -n "__fish_sselint_using_subcommand rule" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l format -d '`human`, `json` or `html` (one self-contained page: the word diff, tool calls side by side, the rows, both timelines on one axis)' -r -f -a "human\t''
json\t''
html\t''"
complete -c sselint -n "__fish_sselint_using_subcommand diff" -s o -l output -d 'Write the report to this file (atomically; a FIFO or device is written through) instead of stdout; `-` is stdout; never an input' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l fail-on -d 'A finding on B that A lacks makes the two incompatible from this severity on' -r -f -a "error\t'Errors fail the run'
warning\t'Warnings and errors'
info\t'Any finding'
never\t'Never fail on findings'"
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l profile -d 'Provider profile for both sides' -r
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l dialect -d 'Read both streams as this dialect: `chat` (OpenAI Chat Completions), `responses` (OpenAI Responses), `messages` (Anthropic Messages), `gemini` (Google Gemini), `ollama` (Ollama\'s native API), `bedrock-converse` (Amazon Bedrock ConverseStream) or `bedrock-invoke` (Bedrock InvokeModelWithResponseStream), or `realtime` (OpenAI Realtime, over a WebSocket); `auto` tells each side\'s dialect from its request path and events' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l dialect-a -d 'Read A as this dialect (overrides --dialect for A)' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l dialect-b -d 'Read B as this dialect (overrides --dialect for B)' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l color -d 'Colour' -r -f -a "auto\t'When stdout is a terminal, unless NO_COLOR is set or TERM=dumb'
always\t'Always (also CLICOLOR_FORCE=1)'
never\t'Never'"
complete -c sselint -n "__fish_sselint_using_subcommand diff" -l ignore-text -d 'Compare shape and fields only (for different prompts): neither the text nor tool-call arguments count against compatibility'
complete -c sselint -n "__fish_sselint_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sselint -n "__fish_sselint_using_subcommand record" -l dialect -d 'The API the endpoint speaks, when its path does not say (`chat`, `responses`, `messages`, `gemini`, `ollama`, `bedrock-converse`, `bedrock-invoke`, `realtime`): how the key is sent (or the request signed) and what the body gains or loses (`stream`: true for Ollama, none for Bedrock)' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand record" -l body -d 'The request body (JSON); `"stream": true` is forced' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand record" -s H -l header -d 'An extra request header, `Name: value` (repeatable)' -r
complete -c sselint -n "__fish_sselint_using_subcommand record" -l api-key-env -d 'Environment variable holding the API key, sent as `Authorization: Bearer …`, as `x-api-key` to an Anthropic Messages endpoint, or as `x-goog-api-key` to a Gemini one (a Bearer token to Vertex AI\'s project paths; a Bedrock API key as a Bearer token); never printed, never saved. Without it, a Bedrock request is signed with SigV4 from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION (or AWS_DEFAULT_REGION, else the host\'s region)' -r
complete -c sselint -n "__fish_sselint_using_subcommand record" -l timeout -d 'Stop after this many seconds (what arrived is kept)' -r
complete -c sselint -n "__fish_sselint_using_subcommand record" -l read-timeout -d 'Stop when nothing arrives for this many seconds (what arrived is kept)' -r
complete -c sselint -n "__fish_sselint_using_subcommand record" -s o -l output -d 'Where to save the capture (default: sselint-TIMESTAMP.har); not `-` (the capture is read back to lint it). A FIFO or device is written through' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand record" -l profile -d 'Provider profile for the live findings' -r
complete -c sselint -n "__fish_sselint_using_subcommand record" -l color -d 'Colour of the final report' -r -f -a "auto\t'When stdout is a terminal, unless NO_COLOR is set or TERM=dumb'
always\t'Always (also CLICOLOR_FORCE=1)'
never\t'Never'"
complete -c sselint -n "__fish_sselint_using_subcommand record" -l fail-on -d 'Exit 1 when the capture holds a finding at or above this severity (`never`: exit 0 whenever something was recorded), as `check` of the saved capture would' -r -f -a "error\t'Errors fail the run'
warning\t'Warnings and errors'
info\t'Any finding'
never\t'Never fail on findings'"
complete -c sselint -n "__fish_sselint_using_subcommand record" -l no-usage -d 'Do not add `stream_options.include_usage` (Chat Completions only; Responses, Messages and Gemini streams carry usage unasked)'
complete -c sselint -n "__fish_sselint_using_subcommand record" -l insecure -d 'Accept any TLS certificate'
complete -c sselint -n "__fish_sselint_using_subcommand record" -l force -d 'Replace an existing output file'
complete -c sselint -n "__fish_sselint_using_subcommand record" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l listen -d 'Address to listen on (port 0 picks a free port)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l entry -d 'HAR: serve entry N' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l delay-ms -d 'Milliseconds between messages: SSE events, NDJSON lines, event-stream frames (overrides the capture\'s timing)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l first-delay-ms -d 'Milliseconds before the first byte' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l split-bytes -d 'Write the body N bytes at a time (splits UTF-8 characters and CRLF)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l cut-after-bytes -d 'Drop the connection after N body bytes (inside a message or frame where N falls there)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l cut-after-messages -d 'Drop the connection after N whole messages (SSE events, NDJSON lines, event-stream frames)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l corrupt-crc -d 'Flip the message CRC of event-stream frame N (counted from 1) in flight (Bedrock captures only)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l corrupt-prelude-crc -d 'Flip the prelude CRC of event-stream frame N (counted from 1) in flight: readers lose the frame\'s length, so every frame after it (Bedrock captures only)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l keepalive-ms -d 'Send `: keep-alive` comments during waits, every MS milliseconds (SSE; over a WebSocket, ping frames)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l close-code -d 'WebSocket: close with this code (1000-4999) where the socket ends: after --cut-after-messages N, else in place of the capture\'s own end' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l close-reason -d 'WebSocket: the reason of --close-code\'s close frame (at most 123 bytes)' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l error-after-messages -d 'WebSocket: send an `error` message after N server messages and drop the rest of that turn' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l garbage-after-messages -d 'WebSocket: send a text message that is not JSON after N server messages' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l stall-after-messages -d 'WebSocket: send nothing after N server messages, holding the socket open until the client closes it' -r
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l dialect -d 'Serve the capture as this dialect\'s endpoint (`chat`, `responses`, `messages`, `gemini`, `ollama`, `bedrock-converse`, `bedrock-invoke`, `realtime`); told from the capture by default' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l any-path -d 'Answer any path and method'
complete -c sselint -n "__fish_sselint_using_subcommand replay" -l once -d 'Serve one request, then exit'
complete -c sselint -n "__fish_sselint_using_subcommand replay" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l model -d 'The model every request names' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l api-key-env -d 'Environment variable holding the API key, sent as `Authorization: Bearer …` (`x-api-key` for Messages, `x-goog-api-key` for Gemini, a Bearer token to Vertex AI\'s project paths; a Bedrock API key); never printed, never saved. Without it, Bedrock requests are signed with SigV4 from the AWS environment variables' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -s H -l header -d 'An extra request header, `Name: value` (repeatable); it replaces the probe\'s own header of that name (Content-Type, Accept, the key\'s Authorization or x-api-key, anthropic-version). Content-Length, Transfer-Encoding, Host, Connection and the other hop-by-hop headers are refused (usage error)' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l dialect -d 'The API: `chat` (default), `responses`, `messages`, `gemini`, `ollama`, `bedrock-converse` or `bedrock-invoke` (`realtime` has no scenarios yet); a URL ending in the API\'s path names it' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l only -d 'Run only these scenarios (comma-separated)' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l skip -d 'Leave out these scenarios (comma-separated)' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -s o -l output -d 'Where to save the captures [default: a new directory probe-YYYYmmdd-HHMMSS, or probe-YYYYmmdd-HHMMSS-2, … when taken]' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l delay-ms -d 'Milliseconds to wait between scenarios (rate limits)' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l timeout -d 'The longest one scenario may take, in seconds (disconnect\'s two requests share it)' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l format -d 'Report format' -r -f -a "human\t'A table of scenario × verdict, then the findings'
json\t'One JSON document (`"version": 1`)'
sarif\t'SARIF 2.1.0 (GitHub code scanning)'
junit\t'JUnit XML, one testcase per scenario'
github\t'GitHub Actions workflow commands'"
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l report -d 'Also write FORMAT to FILE, atomically (repeatable, each to its own FILE), e.g. `--report sarif=probe.sarif`; stdout keeps --format' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l fail-on -d 'The lowest severity that fails a scenario (and the run): `error`, `warning`, `info`, or `never` (scenarios are judged at `error` on the card, and only one that could not run fails the run)' -r -f -a "error\t'Errors fail the run'
warning\t'Warnings and errors'
info\t'Any finding'
never\t'Never fail on findings'"
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l profile -d 'Provider profile the captures are linted under' -r
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l color -d 'Colour of the human report' -r -f -a "auto\t'When stdout is a terminal, unless NO_COLOR is set or TERM=dumb'
always\t'Always (also CLICOLOR_FORCE=1)'
never\t'Never'"
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l force -d 'Replace the captures already in DIR: every file a probe run names (SCENARIO.har of any dialect\'s scenario, disconnect-dropped.har) is removed first, so DIR holds this run alone; other files stay'
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l reasoning -d 'Also run the reasoning scenario (`thinking` for Messages, Gemini, Ollama and Bedrock)'
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l insecure -d 'Accept any TLS certificate'
complete -c sselint -n "__fish_sselint_using_subcommand probe" -l max-completion-tokens -d 'Chat: send the token budget as `max_completion_tokens`, which OpenAI\'s reasoning models require, instead of `max_tokens`'
complete -c sselint -n "__fish_sselint_using_subcommand probe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l upstream -d 'Where requests go: `DIALECT=URL` (chat, responses, realtime, messages, gemini, ollama, bedrock-converse, bedrock-invoke), or a plain `URL` for the OpenAI dialects (chat, responses, realtime) without their own and paths of no dialect; repeatable. http:// or https:// (rustls, the webpki roots), with an optional path prefix. Without any: chat and responses to https://api.openai.com, messages to https://api.anthropic.com, gemini to https://generativelanguage.googleapis.com, nothing else' -r
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l listen -d 'Address to listen on [default: 127.0.0.1:8787, or a free port on 127.0.0.1 when a command is wrapped]' -r
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l fail-on -d 'Exit 1 when a stream has a finding at or above this severity' -r -f -a "error\t'Errors fail the run'
warning\t'Warnings and errors'
info\t'Any finding'
never\t'Never fail on findings'"
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l format -d 'The report written at the end (html: a page of each stream\'s verdict, answer and findings, without its events)' -r -f -a "human\t''
json\t''
sarif\t''
junit\t''
github\t''
html\t''"
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -s o -l output -d 'Write the report to FILE (atomically) instead of stdout' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l save -d 'Save each streamed exchange as DIR/NNNN-DIALECT.har, keys and cookies masked, for `check`, `diff` and `minimize`' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l profile -d 'Provider profile for the lint' -r
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l grace -d 'Seconds open streams get to finish when the command ends or Ctrl-C (or SIGTERM) comes, before they are cut' -r
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l connect-timeout -d 'Seconds an upstream gets to accept the connection, and then to finish the TLS handshake; past either the proxy answers 502 itself and says which. The response itself has no timeout' -r
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l color -d 'Colour of the human report' -r -f -a "auto\t'When stdout is a terminal, unless NO_COLOR is set or TERM=dumb'
always\t'Always (also CLICOLOR_FORCE=1)'
never\t'Never'"
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l allow-remote -d 'Allow --listen on an address other than loopback: anyone who can reach it can spend the keys the clients send through it'
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -l insecure -d 'Accept any TLS certificate from an upstream'
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -s q -l quiet -d 'No line per exchange'
complete -c sselint -n "__fish_sselint_using_subcommand proxy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sselint -n "__fish_sselint_using_subcommand redact" -s o -l output -d 'Where to write the copy (never the input itself); `-` is stdout' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand redact" -l scrub-text -d 'Also replace the prompt and answer text (content, refusal, reasoning, strings in tool arguments, a custom tool\'s input, what server-side tools were asked and returned, request messages, and any prose under a key that names no thing): every letter by x and every digit by 0, or, when that changes the findings, through a letter permutation (a note says so)'
complete -c sselint -n "__fish_sselint_using_subcommand redact" -l force -d 'Replace an existing output file'
complete -c sselint -n "__fish_sselint_using_subcommand redact" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -s o -l output -d 'Where to write it [default: CAPTURE.min.EXT next to the input]; never the input itself, nor `-` (stdout has the report). A FIFO or device is written through, as is `/dev/stdout` redirected to a file (no --force; `>>` appends); with `/dev/stdout` the report goes to stderr' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l rule -d 'Keep only these rules\' findings (names or codes, comma-separated); may name an info finding. Default: every rule at warning or above' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l max-steps -d 'The most candidates linted while minimizing (the re-lints of the report); the input, its redacted copy and the output\'s final check are linted once each on top and not counted. The best result so far is written when they run out' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l config -d 'Configuration file (default: sselint.toml found upward from the current directory); its severities and rules decide the findings kept' -r -F
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l format -d 'Report format' -r -f -a "human\t''
json\t''"
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l profile -d 'Provider profile [default: sselint.toml\'s, else openai]' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l max-event-bytes -d 'The largest event read, in bytes [default: 16 MiB]' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l input-format -d 'Input format; detected from the first bytes by default. `jsonl` (check only): a gateway log, one JSON record per line with `id`, `status`, `headers`, `path` and `body` (or `body_base64`)' -r -f -a "auto\t''
sse\t''
curl\t''
har\t''
jsonl\t''"
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l entry -d 'HAR: lint only entry N (0-based index in log.entries)' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l url-match -d 'HAR: lint only entries whose URL contains TEXT' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l max-decoded-bytes -d 'The largest size a gzip/deflate/br body may decode to, in bytes [default: 512 MiB]' -r
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l dialect -d 'The stream format: told from the request path (HAR, curl -v, record) and the events by default; `chat` (Chat Completions), `responses` (OpenAI Responses), `messages` (Anthropic Messages), `gemini` (Google Gemini\'s streamGenerateContent), `ollama` (Ollama\'s native API, NDJSON), `bedrock-converse` (Amazon Bedrock\'s ConverseStream, AWS event-stream frames), `bedrock-invoke` (Bedrock\'s InvokeModelWithResponseStream: the model\'s own events, Claude\'s, Nova\'s, Titan\'s, Llama\'s or Mistral\'s, in base64 chunks) or `realtime` (OpenAI\'s Realtime API, a WebSocket) reads every stream as that one' -r -f -a "auto\t''
chat\t''
responses\t''
messages\t''
gemini\t''
ollama\t''
bedrock-converse\t''
bedrock-invoke\t''
realtime\t''"
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l keep-text -d 'Leave the prompt and answer text as it is (secrets are still redacted)'
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l force -d 'Replace an existing output file'
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -l no-config -d 'Ignore any sselint.toml: keep the findings of the default rules'
complete -c sselint -n "__fish_sselint_using_subcommand minimize" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand init" -l force -d 'Replace an existing file'
complete -c sselint -n "__fish_sselint_using_subcommand init" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand completions" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand man" -s h -l help -d 'Print help'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "check" -d 'Lint captures: raw SSE bodies, curl dumps, HAR files, directories'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "inspect" -d 'Show every event of a stream with its kind and findings, then the reconstructed answer'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "rules" -d 'List the rule catalogue'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "rule" -d 'Explain one rule (by name or code) with its examples'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "diff" -d 'Compare two streams point by point (answer, tool calls, shape, fields, findings, timing); two dialects on what both have'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "record" -d 'Record a live stream to HAR (per-read timing, secrets redacted), linting it as it arrives'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "replay" -d 'Serve a capture at its dialect\'s endpoint (/v1/chat/completions, /v1/responses, /v1/messages, a Gemini model\'s :streamGenerateContent, Ollama\'s /api/chat or Bedrock\'s /model/ID/converse-stream), with fault injection (delays, split writes, keep-alives, a dropped connection, a bad frame CRC)'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "probe" -d 'Send a set of streaming scenarios (plain, usage, length, tool, n: 2, an invalid request, a client disconnect, …) to a live endpoint, save and lint each capture with its request, and print a report card'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "proxy" -d 'Forward an application\'s LLM requests to their upstreams, byte for byte, and lint every stream as it passes; with `-- CMD`, run the command through it and gate on the streams it made'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "redact" -d 'Write a shareable copy of a capture: secrets removed, and with --scrub-text the prompt and answer text replaced'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "minimize" -d 'Cut a capture down to the smallest one that still gives its findings (events, fields inside them, headers), redacted'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "init" -d 'Write a commented sselint.toml to start from'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell)'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "man" -d 'Print the man page (roff, section 1)'
complete -c sselint -n "__fish_sselint_using_subcommand help; and not __fish_seen_subcommand_from check inspect rules rule diff record replay probe proxy redact minimize init completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'

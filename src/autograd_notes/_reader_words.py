"""The few sentences the helpers say to the reader of a download, in each language of the site.

A reader installs only this package, not the site's catalogs: so the drift
message, the folded-frames line of a traceback and what ``explain`` and the
error hooks say carry their own translations here, one template per key and language (``str.format``
fields in braces). Every language has every key with the same fields
(tests/helpers/test_reader_words.py); the folded-frames lines are the
site's own (``docs/locale/<lang>/LC_MESSAGES/sphinx.po``), so a download
prints what its page shows.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

__all__ = ["LANGUAGES", "words"]

_EN: Final = {
    "frame": "[1 frame inside PyTorch: {functions}]",
    "frames": "[{count} frames inside PyTorch: {functions}]",
    "rank": "[rank {rank} of {world_size}]",
    "lead": "PyTorch {torch} does not do what this example's page documents for PyTorch {pinned}, "
    "at {location}:",
    "documented": "  documented: {documented}",
    "observed": "  observed:   {observed}",
    "no_exception": "no exception was raised",
    "message_changed": "the message changed to {message}",
    "other_warnings": "other warnings: {warnings}",
    "no_warning": "no warning was emitted",
    "covered": "{first} to {last}",
    "not_recorded": "  PyTorch {release} is not among the releases the site records ({covered}). "
    "What each recorded release does: {page}",
    "check_elsewhere": "  The site records this check as documented on PyTorch {release}: the difference "
    "comes from elsewhere (this PyTorch's build, the machine, or an edited script). Every release: {page}",
    "holds": "  The site records this check holding on PyTorch {release}, as documented: the difference "
    "comes from elsewhere (this PyTorch's build or the machine). Every release: {page}",
    "recorded": "  PyTorch {release} is recorded to do this here ({mark}): {text}\n"
    "  What every release from {covered} does: {page}",
    "no_record": "  PyTorch {release} has no record of this example. What the recorded releases do: {page}",
    "stops_early": "PyTorch {release} is recorded to stop this example before its end, on a CPU: {text}\n"
    "  Every release: {page}",
    "runs_from": "\n  The next recorded release that runs it to its end: PyTorch {since}.",
    "mark_build": "differs by build",
    "mark_words": "message differs",
    "mark_outcome": "different outcome",
    "mark_missing": "not available in this release",
    "goes_on": "  That is what the site records this release doing here: the example goes on "
    "({variable}=1 stops it here instead).",
    "explained": "Autograd Notes explains this error: {title}: {url}",
    "explain_found": "Pages of Autograd Notes that explain it, best first:",
    "explain_matched": "(the message it matched: {message})",
    "explain_none": "No page of Autograd Notes explains this error. "
    "Every error the examples document: {page}",
    "on_cpu": "This PyTorch's {device} device has no {dtypes}, which this example needs: it runs on the CPU.",
}

_RU: Final = {
    "frame": "[1 кадр внутри PyTorch: {functions}]",
    "frames": "[кадров внутри PyTorch: {count}; {functions}]",
    "rank": "[процесс {rank} из {world_size}]",
    "lead": "PyTorch {torch} ведёт себя не так, как страница этого примера описывает PyTorch {pinned}, "
    "в {location}:",
    "documented": "  описано:  {documented}",
    "observed": "  получено: {observed}",
    "no_exception": "исключение не выброшено",
    "message_changed": "сообщение стало таким: {message}",
    "other_warnings": "другие предупреждения: {warnings}",
    "no_warning": "предупреждений не было",
    "covered": "{first}–{last}",
    "not_recorded": "  PyTorch {release} нет среди выпусков, которые записывает сайт ({covered}). "
    "Что делает каждый записанный выпуск: {page}",
    "check_elsewhere": "  Сайт записал, что на PyTorch {release} эта проверка ведёт себя как описано: "
    "разница приходит из другого места (сборка этого PyTorch, машина или изменённый скрипт). "
    "Все выпуски: {page}",
    "holds": "  Сайт записал, что на PyTorch {release} эта проверка выполняется, как описано: разница "
    "приходит из другого места (сборка этого PyTorch или машина). Все выпуски: {page}",
    "recorded": "  Записано, что PyTorch {release} делает здесь вот что ({mark}): {text}\n"
    "  Что делает каждый выпуск {covered}: {page}",
    "no_record": "  Для PyTorch {release} нет записи этого примера. Что делают записанные выпуски: {page}",
    "stops_early": "Записано, что PyTorch {release} на CPU останавливает этот пример раньше конца: {text}\n"
    "  Все выпуски: {page}",
    "runs_from": "\n  Следующий записанный выпуск, на котором пример доходит до конца: PyTorch {since}.",
    "mark_build": "отличается только сборкой",
    "mark_words": "сообщение другое",
    "mark_outcome": "другой исход",
    "mark_missing": "нет в этом выпуске",
    "goes_on": "  Именно это сайт записал для этого выпуска здесь: пример продолжается "
    "(с {variable}=1 он остановился бы здесь).",
    "explained": "Autograd Notes объясняет эту ошибку: {title}: {url}",
    "explain_found": "Страницы Autograd Notes, которые объясняют эту ошибку, от самой подходящей:",
    "explain_matched": "(совпавшее сообщение: {message})",
    "explain_none": "Ни одна страница Autograd Notes не объясняет эту ошибку. "
    "Все ошибки, которые показывают примеры: {page}",
    "on_cpu": "Устройство {device} в этом PyTorch не поддерживает {dtypes}, а этому примеру это нужно: "
    "он выполняется на CPU.",
}

_ZH_CN: Final = {
    "frame": "[PyTorch 内部的 1 个栈帧：{functions}]",
    "frames": "[PyTorch 内部的 {count} 个栈帧：{functions}]",
    "rank": "[进程 {rank}（共 {world_size} 个）]",
    "lead": "PyTorch {torch} 的行为与本示例页面为 PyTorch {pinned} 记录的不同，位置：{location}：",
    "documented": "  页面记录：{documented}",
    "observed": "  实际观察：{observed}",
    "no_exception": "没有抛出异常",
    "message_changed": "消息变成了：{message}",
    "other_warnings": "其他警告：{warnings}",
    "no_warning": "没有发出警告",
    "covered": "{first} 至 {last}",
    "not_recorded": "  PyTorch {release} 不在本站记录的版本之中（{covered}）。每个已记录版本的行为：{page}",
    "check_elsewhere": "  本站记录这项检查在 PyTorch {release} 上与页面一致：差异来自别处"
    "（这个 PyTorch 的构建、机器或修改过的脚本）。所有版本：{page}",
    "holds": "  本站记录这项检查在 PyTorch {release} 上如页面所述成立：差异来自别处"
    "（这个 PyTorch 的构建或机器）。所有版本：{page}",
    "recorded": "  记录显示 PyTorch {release} 在这里的行为（{mark}）：{text}\n"
    "  {covered} 每个版本的行为：{page}",
    "no_record": "  PyTorch {release} 没有这个示例的记录。已记录版本的行为：{page}",
    "stops_early": "据记录，PyTorch {release} 在 CPU 上会让此示例在结尾之前停止：{text}\n"
    "  各版本的情况：{page}",
    "runs_from": "\n  记录中能把它运行到结尾的下一个版本：PyTorch {since}。",
    "mark_build": "仅因构建不同",
    "mark_words": "消息不同",
    "mark_outcome": "结果不同",
    "mark_missing": "此版本中不可用",
    "goes_on": "  本站记录的正是该版本在此处的行为：示例继续运行（设置 {variable}=1 则会在此停止）。",
    "explained": "Autograd Notes 解释了这个错误：{title}：{url}",
    "explain_found": "Autograd Notes 中解释此错误的页面（最相关的在前）：",
    "explain_matched": "（匹配到的消息：{message}）",
    "explain_none": "Autograd Notes 中没有解释此错误的页面。示例记录的所有错误：{page}",
    "on_cpu": "此 PyTorch 的 {device} 设备不支持本示例所需的 {dtypes}：示例改在 CPU 上运行。",
}

_PT_BR: Final = {
    "frame": "[1 frame dentro do PyTorch: {functions}]",
    "frames": "[{count} frames dentro do PyTorch: {functions}]",
    "rank": "[processo {rank} de {world_size}]",
    "lead": "O PyTorch {torch} não faz o que a página deste exemplo documenta para o PyTorch {pinned}, "
    "em {location}:",
    "documented": "  documentado: {documented}",
    "observed": "  observado:   {observed}",
    "no_exception": "nenhuma exceção foi levantada",
    "message_changed": "a mensagem mudou para {message}",
    "other_warnings": "outros avisos: {warnings}",
    "no_warning": "nenhum aviso foi emitido",
    "covered": "{first} a {last}",
    "not_recorded": "  O PyTorch {release} não está entre as versões que o site registra ({covered}). "
    "O que cada versão registrada faz: {page}",
    "check_elsewhere": "  O site registra esta verificação como documentada no PyTorch {release}: "
    "a diferença vem de outro lugar (a compilação deste PyTorch, a máquina ou um script editado). "
    "Todas as versões: {page}",
    "holds": "  O site registra esta verificação valendo no PyTorch {release}, como documentado: a diferença "
    "vem de outro lugar (a compilação deste PyTorch ou a máquina). Todas as versões: {page}",
    "recorded": "  O PyTorch {release} está registrado fazendo isto aqui ({mark}): {text}\n"
    "  O que cada versão de {covered} faz: {page}",
    "no_record": "  O PyTorch {release} não tem registro deste exemplo. "
    "O que as versões registradas fazem: {page}",
    "stops_early": "Está registrado que o PyTorch {release} para este exemplo antes do fim, na CPU: {text}\n"
    "  Todas as versões: {page}",
    "runs_from": "\n  A próxima versão registrada que o roda até o fim: PyTorch {since}.",
    "mark_build": "difere só pela compilação",
    "mark_words": "mensagem difere",
    "mark_outcome": "resultado diferente",
    "mark_missing": "indisponível nesta versão",
    "goes_on": "  É isso que o site registra esta versão fazendo aqui: o exemplo continua "
    "({variable}=1 o faria parar aqui).",
    "explained": "O Autograd Notes explica este erro: {title}: {url}",
    "explain_found": "Páginas do Autograd Notes que explicam este erro, "
    "da mais próxima para a menos próxima:",
    "explain_matched": "(a mensagem correspondente: {message})",
    "explain_none": "Nenhuma página do Autograd Notes explica este erro. "
    "Todos os erros que os exemplos documentam: {page}",
    "on_cpu": "O dispositivo {device} deste PyTorch não suporta {dtypes}, de que este exemplo precisa: "
    "ele roda na CPU.",
}

_WORDS: Final = MappingProxyType({"en": _EN, "ru": _RU, "zh_CN": _ZH_CN, "pt_BR": _PT_BR})

LANGUAGES: Final = tuple(_WORDS)
"""The languages the helpers speak: the site's."""


def words(language: str | None) -> MappingProxyType[str, str]:
    """The templates in ``language``; English for None or a language the site does not have."""
    return MappingProxyType(_WORDS.get(language or "en", _EN))
